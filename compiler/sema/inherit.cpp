// Definitions made from templates and parents, `from TEMPLATE` rows, and the
// clashes between a definition's parts.
#include "sema/checker.h"

#include "sema/templates.h"
#include "sema/words.h"

#include <algorithm>

namespace ledger::sema {

const char *Checker::kindWord(RefKind kind) {
  return kind == RefKind::Effect ? "effect" : kind == RefKind::Ability ? "ability" : "archetype";
}

// The kind of lines a template holds, as its own line says (a replacement
// keeps it): an effect's, an ability's, an archetype's, or whole definitions.
RefKind Checker::templateKind(const Decl &decl) const {
  const Slot *kind = tree_.slot(decl.node, "kind");
  if (!kind)
    return RefKind::Template;
  std::string_view k = text(tree_.nodes[decl.node].file, kind->begin);
  return k == "effect" ? RefKind::Effect : k == "ability" ? RefKind::Ability : RefKind::Archetype;
}

// A replacement naming parameters brings its own; one naming none keeps
// the template's.
NodeId Checker::templateParams(const Decl &decl) const {
  NodeId first = decl.parts.front();
  return tree_.slot(first, "param") ? first : decl.node;
}

// `from PARENT`: a definition of its kind, whose lines come first, or a
// template written out with the values given. A parent made from another
// is resolved first; one made from itself, through any chain, is refused.
void Checker::inherit(NodeId n, RefKind kind) {
  if (std::find(inherited_.begin(), inherited_.end(), n) != inherited_.end())
    return;
  if (std::find(inheriting_.begin(), inheriting_.end(), n) != inheriting_.end()) {
    const Node &node = tree_.nodes[n];
    const Slot *name = tree_.slot(n, "name");
    diags_.report(DiagKind::MadeFromItself, tree_.loc(node.file, name->begin),
                  length(node.file, name->begin), slotText(n, "name"));
    inherited_.push_back(n);
    return;
  }
  if (inheriting_.size() >= kMaxChain) {
    const Node &node = tree_.nodes[n];
    diags_.report(DiagKind::ChainTooLong, tree_.loc(node.file, node.begin),
                  length(node.file, node.begin), kMaxChain);
    inherited_.push_back(n);
    return;
  }
  inheriting_.push_back(n);
  inheritFrom(n, kind);
  inheriting_.pop_back();
  inherited_.push_back(n);
}

void Checker::inheritFrom(NodeId n, RefKind kind) {
  const Slot *parentSlot = tree_.slot(n, "parent");
  if (!parentSlot)
    return;
  NodeId parent = parentSlot->value;
  const Node node = tree_.nodes[n];
  const Slot *parentName = tree_.slot(parent, "name");
  std::string parentText(tree_.span(node.file, parentName->begin, parentName->end));
  std::string own(slotText(n, "name"));
  Loc at = tree_.loc(node.file, parentName->begin);
  auto len = static_cast<uint32_t>(parentText.size());
  auto &defs = decls_.byNamespace[size_t(namespaceOf(kind))];
  auto self = defs.find(own);
  if (self == defs.end() || self->second.node != n)
    return; // refused as declared twice
  if (self->second.replacedBy != kNone)
    return; // a replacement is swapped in whole, parent and all
  const Slot *args = tree_.slot(parent, "args");
  if (const Decl *tmpl = decls_.find(Namespace::Shared, parentText);
      tmpl && tmpl->kind == RefKind::Template) {
    RefKind tk = templateKind(*tmpl);
    if (tk != kind) {
      diags_.report(DiagKind::TemplateOfAnotherKind, at, len, parentText,
                    tk == RefKind::Template ? std::string("whole definitions")
                                            : std::string(kindWord(tk)) + " lines",
                    refKindWithArticle(kind));
      return;
    }
    TemplateUse use;
    use.templateName = parentText;
    use.parts = tmpl->parts;
    use.params = templateParams(*tmpl);
    use.header = std::string(kindWord(kind)) + " " + own;
    if (args)
      use.values = argumentValues(tree_, node.file, args->begin, args->end);
    use.origin = at;
    use.package = tree_.packages[node.file];
    usedTemplates_.push_back(parentText);
    NodeId written = writeOutTemplate(tree_, sources_, diags_, use);
    if (written != kNone)
      defs.find(own)->second.parts.insert(defs.find(own)->second.parts.begin(), written);
    return;
  }
  auto from = defs.find(parentText);
  if (from == defs.end()) {
    diags_.report(DiagKind::ParentOfAnotherKind, at, len, parentText, kindWord(kind));
    return;
  }
  if (args) {
    diags_.report(DiagKind::ParentWithArguments, at, len, parentText);
    return;
  }
  if (from->second.node != kNone && tree_.slot(from->second.node, "parent"))
    inherit(from->second.node, kind);
  std::vector<NodeId> parts = from->second.parts;
  auto &mine = defs.find(own)->second.parts;
  mine.insert(mine.begin(), parts.begin(), parts.end());
}

// `from TEMPLATE`: whole definitions, written once for each row under it,
// as if written there.
void Checker::writeFrom(NodeId n) {
  const Node node = tree_.nodes[n];
  const Slot *tmplSlot = tree_.slot(n, "template");
  std::string name(tree_.span(node.file, tmplSlot->begin, tmplSlot->end));
  const Decl *tmpl = decls_.find(Namespace::Shared, name);
  if (!tmpl || tmpl->kind != RefKind::Template) {
    // A template written further on: written out once every line is read.
    if (!declaredAll_)
      pendingFroms_.push_back(n);
    return; // else refused when its name is resolved
  }
  if (templateKind(*tmpl) != RefKind::Template) {
    diags_.report(DiagKind::FromNeedsDefinitions, tree_.loc(node.file, tmplSlot->begin),
                  static_cast<uint32_t>(name.size()), name, kindWord(templateKind(*tmpl)));
    return;
  }
  if (writing_.size() >= kMaxChain) {
    diags_.report(DiagKind::ChainTooLong, tree_.loc(node.file, tmplSlot->begin),
                  static_cast<uint32_t>(name.size()), kMaxChain);
    return;
  }
  // A template whose lines write it out again would never end.
  if (std::find(writing_.begin(), writing_.end(), name) != writing_.end()) {
    diags_.report(DiagKind::TemplateWritesItself, tree_.loc(node.file, tmplSlot->begin),
                  static_cast<uint32_t>(name.size()), name);
    return;
  }
  usedTemplates_.push_back(name);
  writing_.push_back(name);
  std::vector<NodeId> parts = tmpl->parts;
  for (NodeId row = node.firstChild; row != kNone; row = tree_.nodes[row].nextSibling) {
    const Node rowNode = tree_.nodes[row];
    const Slot *values = tree_.slot(row, "values");
    TemplateUse use;
    use.templateName = name;
    use.parts = parts;
    use.params = templateParams(*tmpl);
    use.values = rowValues(tree_, rowNode.file, values->begin, values->end);
    for (NodeId c = rowNode.firstChild; c != kNone; c = tree_.nodes[c].nextSibling)
      use.block.push_back(c);
    use.origin = tree_.loc(rowNode.file, rowNode.begin);
    use.package = tree_.packages[rowNode.file];
    NodeId written = writeOutTemplate(tree_, sources_, diags_, use);
    for (NodeId d = written; d != kNone; d = tree_.nodes[d].nextSibling)
      declare(d);
  }
  writing_.pop_back();
}

// A clause a definition says once: made from a template or a parent, or
// extended, it adds and never replaces, so the same clause from two of its
// parts clashes, and one said twice in the same lines is refused too.
std::vector<std::string> Checker::onceKeys(NodeId n) const {
  const Node &node = tree_.nodes[n];
  switch (node.kind) {
  case FormKind::ArchetypeWith: {
    std::vector<std::string> pools;
    for (const Slot *s : tree_.slotsNamed(n, "assign"))
      pools.push_back("with " + slotText(s->value, "name"));
    return pools;
  }
  case FormKind::EffectStack:
    return {"stack"};
  case FormKind::EffectClock:
    return {"clock"};
  case FormKind::EffectDies:
    return {"dies"};
  case FormKind::EffectFalls:
    return {"falls"};
  case FormKind::EffectOrder:
    return {"order"};
  case FormKind::EffectVar:
    return {"var " + slotText(n, "name")};
  case FormKind::AbilityTarget:
    return {"target"};
  case FormKind::AbilityCooldown:
    return {"cooldown"};
  case FormKind::AbilityRadius:
    return {"radius"};
  case FormKind::AbilityWindup:
  case FormKind::AbilityChannel:
  case FormKind::AbilityCharge:
  case FormKind::AbilityFlies:
    return {std::string(text(node.file, node.begin))};
  case FormKind::ArchetypeBase:
    return {"base " + slotText(n, "stat")};
  default:
    return {};
  }
}

void Checker::checkClashes(const std::string &name, const Decl &decl) {
  std::map<std::string, std::pair<NodeId, NodeId>, std::less<>> said; // key: part, line
  for (NodeId part : decl.parts)
    for (NodeId c = tree_.nodes[part].firstChild; c != kNone; c = tree_.nodes[c].nextSibling) {
      for (const std::string &key : onceKeys(c)) {
        auto [it, added] = said.emplace(key, std::make_pair(part, c));
        if (added)
          continue;
        const Node &node = tree_.nodes[c];
        const Node &first = tree_.nodes[it->second.second];
        diags_.report(it->second.first == part ? DiagKind::ClauseTwice : DiagKind::Clash,
                      tree_.loc(node.file, node.begin), length(node.file, node.begin), key, name);
        diags_.note(DiagKind::ClashHere, tree_.loc(first.file, first.begin),
                    length(first.file, first.begin), key);
      }
    }
}

} // namespace ledger::sema
