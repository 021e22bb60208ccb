// Each record of the pack format by its fields, in the order they are
// declared: what the blob's writer and reader walk (pack_io.cpp), and what a
// specialised pack's tables are laid out from, padding left zero.
#pragma once

#include "pack_format.h"

#include <tuple>

namespace ledger::pack {

// So the bytes hold no padding and a catalog's blob, and its hash, are the
// same on every build. A field added to a record is added here too. They
// stand in the records' own namespace, where the bytes' writer and reader
// find them.
// clang-format off
inline auto fields(Value &r) { return std::tie(r.name, r.kind, r.whole, r.rise, r.clockWorld, r.kept, r.byType, r.member, r.memberTag, r.minBody, r.maxBody, r.defaultValue, r.regenStat, r.regenPeriod, r.refillAmount, r.refillPeriod, r.regenPeriodBody, r.refillPeriodBody); }
inline auto fields(Tag &r) { return std::tie(r.name, r.parent, r.carried, r.closure); }
inline auto fields(Event &r) { return std::tie(r.name, r.builtin); }
inline auto fields(Link &r) { return std::tie(r.name, r.global); }
inline auto fields(Prop &r) { return std::tie(r.name, r.kind, r.whole, r.hasMin, r.hasMax, r.defaultValue, r.min, r.max, r.under, r.among); }
inline auto fields(Curve &r) { return std::tie(r.name, r.steps, r.pointsBegin, r.pointCount); }
inline auto fields(Point &r) { return std::tie(r.x, r.y); }
inline auto fields(WhoClause &r) { return std::tie(r.who, r.body); }
inline auto fields(Filter &r) { return std::tie(r.event, r.tag, r.any, r.pool, r.having, r.unless, r.prevented, r.of, r.by, r.credited, r.targeting); }
inline auto fields(Rule &r) { return std::tie(r.kind, r.owner, r.index, r.filter, r.stage, r.oncePerChain, r.creditHolder, r.whenBody, r.matchBody, r.steps, r.intervalBody, r.countBody, r.having, r.unless, r.line); }
inline auto fields(Modifier &r) { return std::tie(r.stat, r.op, r.percent, r.flat, r.live, r.captured, r.category, r.amountBody); }
inline auto fields(StackPolicy &r) { return std::tie(r.mode, r.full, r.perSource, r.isSigned, r.maxBody, r.strongerBody, r.keepUpTo, r.keepSaid); }
inline auto fields(Lasts &r) { return std::tie(r.kind, r.timeBody, r.oneAtATime, r.countBody, r.countFilter, r.countMatchBody); }
inline auto fields(Var &r) { return std::tie(r.name, r.kind, r.initBody); }
inline auto fields(Block &r) { return std::tie(r.all, r.event, r.tags, r.unless, r.having, r.havingVar, r.byHolder, r.from); }
inline auto fields(LinkOverride &r) { return std::tie(r.link, r.actorBody); }
inline auto fields(Effect &r) { return std::tie(r.name, r.tags, r.isCooldown, r.varsBegin, r.varCount, r.stack, r.lasts, r.clock, r.clockStat, r.diesPool, r.diesEvent, r.fallsPool, r.fallsEvent, r.preventsDeath, r.suspendsAll, r.suspendsExcept, r.orderBody, r.exclusive, r.grantsBegin, r.grantCount, r.autosBegin, r.autoCount, r.grantVarsBegin, r.grantVarCount, r.blocksBegin, r.blockCount, r.overridesBegin, r.overrideCount, r.modifiersBegin, r.modifierCount, r.rulesBegin, r.ruleCount, r.line); }
inline auto fields(Cost &r) { return std::tie(r.pool, r.amountBody, r.link, r.upfront); }
inline auto fields(Requirement &r) { return std::tie(r.body, r.leftBody, r.rightBody, r.text); }
inline auto fields(Ability &r) { return std::tie(r.name, r.tags, r.target, r.side, r.upTo, r.distinct, r.targetCount, r.targetHaving, r.targetUnless, r.withinBody, r.takesBegin, r.takeCount, r.listedBegin, r.listedCount, r.requiresBegin, r.requireCount, r.costsBegin, r.costCount, r.cooldownEffect, r.steps, r.line); }
inline auto fields(ArchetypeValue &r) { return std::tie(r.value, r.link, r.body); }
inline auto fields(Archetype &r) { return std::tie(r.name, r.tags, r.basesBegin, r.baseCount, r.withBegin, r.withCount, r.poolsBegin, r.poolCount, r.fullBegin, r.fullCount, r.hasBegin, r.hasCount, r.grantsBegin, r.grantCount, r.autosBegin, r.autoCount, r.givesBegin, r.giveCount); }
inline auto fields(Body &r) { return std::tie(r.kind, r.root, r.stepsBegin, r.stepsEnd, r.localCount, r.line, r.file); }
inline auto fields(Expr &r) { return std::tie(r.op, r.a, r.b, r.c, r.imm, r.argsBegin, r.argCount); }
inline auto fields(Fold &r) { return std::tie(r.kind, r.query, r.item); }
inline auto fields(Read &r) { return std::tie(r.op, r.a, r.b, r.tags); }
inline auto fields(Query &r) { return std::tie(r.kind, r.quantifier, r.subject, r.having, r.unless, r.whenBody, r.hasCount, r.hasOf, r.effect, r.keysBegin, r.keyCount, r.hasFrom); }
inline auto fields(Step &r) { return std::tie(r.op, r.info, r.argsBegin, r.argCount, r.bodyBegin, r.bodyEnd, r.elseBegin, r.elseEnd, r.slot, r.line); }
inline auto fields(Action &r) { return std::tie(r.op, r.a, r.b, r.c, r.listBegin, r.listCount, r.tags, r.query, r.queryArgCount, r.withBegin, r.withCount, r.flags, r.resultSlot, r.line); }
inline auto fields(SortKey &r) { return std::tie(r.kind, r.tag, r.body); }
inline auto fields(AutoGrant &r) { return std::tie(r.ability, r.keysBegin, r.keyCount); }
// clang-format on

} // namespace ledger::pack
