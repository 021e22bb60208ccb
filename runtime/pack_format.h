// The pack format: a catalog's tables and bodies as flat arrays of plain
// records, every name a dense index. The compiler's IR lowers into it
// (compiler/ir), the reference engine evaluates its bodies, the code
// generator compiles them, and a compiled pack carries it as one blob the
// runtime reads back and checks before it trusts a single index.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ledger::pack {

using Id = uint32_t;
inline constexpr Id kNoId = UINT32_MAX;
// The most portions a change holds: `portions` may declare this many types.
inline constexpr uint32_t kMaxPortions = 16;

// Built-in events, in this order at the start of the event table; a pool's
// change is one event kind, Change, named by the tag it carries (Damage, Heal,
// Gain, Loss, Set, Cost).
#define LEDGER_BUILTIN_EVENTS(X)                                                                   \
  X(Apply) X(Remove) X(Create) X(Destroy) X(Make) X(Become) X(Move) X(Activate) X(Target)          \
  X(Commit) X(Resolved) X(Stopped) X(Pulse) X(Finished) X(Contact) X(Depleted) X(Filled) X(Enter)   \
  X(Leave) X(Cross) X(Change)
enum class BuiltinEvent : Id {
#define X(Name) Name,
  LEDGER_BUILTIN_EVENTS(X)
#undef X
  Count
};

// Built-in tags, at the start of the tag table in this order.
#define LEDGER_BUILTIN_TAGS(X)                                                                     \
  X(Damage, "Damage") X(Heal, "Heal") X(Cost, "Cost") X(Gain, "Gain") X(Loss, "Loss")               \
  X(Set, "Set") X(Cooldown, "Cooldown") X(Timed, "Timed") X(Fallen, "Fallen") X(Stop, "Stop")       \
  X(StopBroken, "Stop.Broken") X(StopBlocked, "Stop.Blocked")                                      \
  X(StopInterrupted, "Stop.Interrupted") X(StopUnpaid, "Stop.Unpaid")                              \
  X(StopCancelled, "Stop.Cancelled") X(StopGone, "Stop.Gone") X(StopRefused, "Stop.Refused")       \
  X(End, "End") X(EndExpired, "End.Expired") X(EndRemoved, "End.Removed")                          \
  X(EndBroken, "End.Broken") X(EndSpent, "End.Spent") X(EndReplaced, "End.Replaced")               \
  X(EndWithdrawn, "End.Withdrawn") X(EndGone, "End.Gone") X(EndAnswered, "End.Answered")
enum class BuiltinTag : Id {
#define X(Name, Text) Name,
  LEDGER_BUILTIN_TAGS(X)
#undef X
  Count
};

// A tag set: words [set * tagWords, (set + 1) * tagWords) of Tables::tagBits.
// Set 0 is empty. A tag's own set holds it and its ancestors, so an actor
// carrying Damage.Fire answers to a filter naming Damage.
using TagSet = uint32_t;

enum class ValueKind : uint8_t { Stat, Pool };
enum class Rounding : uint8_t { None, Floor, Ceil, Round, Trunc };
enum class Rise : uint8_t { Keep, Heal };

struct Value {
  Id name = 0;
  ValueKind kind = ValueKind::Stat;
  Rounding whole = Rounding::None; // whole [ROUNDING]: to a whole number, this way
  Rise rise = Rise::Keep;
  bool clockWorld = false;
  bool kept = false;
  bool byType = false;     // a stat by type's own entry: its members follow it
  Id member = kNoId;       // a member of a stat by type: the parent value
  Id memberTag = kNoId;    // and the portion tag it stands for
  Id minBody = kNoId;      // formulas; kNoId: none said
  Id maxBody = kNoId;
  int64_t defaultValue = 0; // a stat's base where its archetype says none
  Id regenStat = kNoId;     // regen STAT per D: STAT a period
  int64_t regenPeriod = 0;  // in world time (millionths of a unit)
  int64_t refillAmount = 0;     // refill N every D
  int64_t refillPeriod = 0; // in world time (millionths of a unit)
  // A regen's `per` or a refill's `every` that reads values: a formula giving
  // the period in world time, read as the drift is (its constant period 0).
  Id regenPeriodBody = kNoId;
  Id refillPeriodBody = kNoId;
  bool refills() const { return refillPeriod > 0 || refillPeriodBody != kNoId; }
  // A pool moving by itself between changes: a regen or a refill.
  bool drifts() const { return regenStat != kNoId || refills(); }
};

struct Tag {
  Id name = 0;
  Id parent = kNoId;
  bool carried = false;
  TagSet closure = 0; // itself and its ancestors
};

struct Event {
  Id name = 0;
  bool builtin = false;
};

struct Link {
  Id name = 0;
  bool global = false;
};

enum class PropKind : uint8_t { Number, Tag };
struct Prop {
  Id name = 0;
  PropKind kind = PropKind::Number;
  bool whole = false;
  bool hasMin = false, hasMax = false;
  int64_t defaultValue = 0; // a number, or a tag handle (tag id + 1), 0 none
  int64_t min = 0, max = 0;
  Id under = kNoId;   // prop NAME under TAG
  TagSet among = 0;   // prop NAME among TAGS
};

struct Curve {
  Id name = 0;
  bool steps = false;
  uint32_t pointsBegin = 0, pointCount = 0; // into Tables::curvePoints (x, y)
};

// Who an event filter's of, by, credited to and targeting names.
enum class Who : uint8_t {
  Unsaid,
  Holder,     // the rule's holder (an actor path that is `holder`)
  Actor,      // an actor read by the formula body in whoBody
  Anyone,
  Enemies,
  Allies,
  OtherAllies,
  Others,
};

struct WhoClause {
  Who who = Who::Unsaid;
  Id body = kNoId; // Who::Actor: a formula giving the actor
};

struct Filter {
  Id event = kNoId;   // an event kind, or kNoId when a tag names it
  Id tag = kNoId;     // a tag the event carries, in place of a kind
  bool any = false;   // `any`: every event
  Id pool = kNoId;
  TagSet having = 0, unless = 0;
  bool prevented = false;
  WhoClause of, by, credited, targeting;
};

enum class RuleKind : uint8_t { Before, After, Every, Start, End, Expire, EndsOn, Each };

struct Rule {
  RuleKind kind = RuleKind::After;
  Id owner = kNoId;      // its effect
  uint32_t index = 0;    // its place among its effect's rules, for receipts
  Filter filter;         // Before, After, EndsOn, Each
  Id stage = kNoId;      // Before: at STAGE
  bool oncePerChain = false;
  bool creditHolder = false;
  Id whenBody = kNoId;   // a condition, or kNoId
  Id matchBody = kNoId;  // its filter as a formula of the event in hand: 1 if it hears it
  Id steps = kNoId;      // a steps body
  Id intervalBody = kNoId; // Every: a duration formula (seconds)
  Id countBody = kNoId;  // Each: the stacks it spends
  TagSet having = 0, unless = 0; // End
  uint32_t line = 0;
};

enum class ModOp : uint8_t { Add, Sub, Mul, Set, Base, AtLeast, AtMost };

struct Modifier {
  Id stat = kNoId;
  ModOp op = ModOp::Add;
  bool percent = false; // its amount is a percent: scales the stat
  bool flat = false;
  bool live = false;
  bool captured = false; // reads another actor's values, or held(...): kept as it goes on
  Id category = kNoId;
  Id amountBody = kNoId;
};

enum class StackMode : uint8_t { Unsaid, Add, Separate, Refresh, Extend, Ignore, Replace };
enum class FullMode : uint8_t { Unsaid, Refuse, Oldest, Shortest, Refresh };

struct StackPolicy {
  StackMode mode = StackMode::Unsaid;
  FullMode full = FullMode::Unsaid;
  bool perSource = false;
  bool isSigned = false;
  Id maxBody = kNoId;
  Id strongerBody = kNoId;
  int64_t keepUpTo = 0; // a share of the time left a refresh keeps (millionths of 1)
  bool keepSaid = false;
};

enum class LastsKind : uint8_t { Forever, Time, Turns, Count };

struct Lasts {
  LastsKind kind = LastsKind::Forever;
  Id timeBody = kNoId; // seconds
  bool oneAtATime = false;
  Id countBody = kNoId; // turns, or events the filter matches
  Filter countFilter;
  Id countMatchBody = kNoId; // the filter as a formula of the event in hand
};

enum class ClockKind : uint8_t { Holder, World, Stat };

enum class VarKind : uint8_t { Number, Ability, Tag, Actor, Instance };
struct Var {
  Id name = 0;
  VarKind kind = VarKind::Number;
  Id initBody = kNoId;
};

struct Block {
  bool all = false;
  Id event = kNoId;     // an event kind, or
  TagSet tags = 0;      // tags an event carries
  TagSet unless = 0, having = 0;
  Id havingVar = kNoId; // having self.VAR
  bool byHolder = false;
  WhoClause from;
};

// An ability its holder uses by itself, ranking targets by its keys.
enum class SortKeyKind : uint8_t { Tag, Highest, Lowest, Newest, Oldest };
struct SortKey {
  SortKeyKind kind = SortKeyKind::Highest;
  Id tag = kNoId;   // Tag: its holders first
  Id body = kNoId;  // Highest, Lowest: read of each candidate as it
};
struct AutoGrant {
  Id ability = kNoId;
  uint32_t keysBegin = 0, keyCount = 0; // into sortKeys
};

struct LinkOverride {
  Id link = kNoId;
  Id actorBody = kNoId;
};

struct Effect {
  Id name = 0;
  TagSet tags = 0;
  bool isCooldown = false; // ABILITY.cooldown
  uint32_t varsBegin = 0, varCount = 0;
  StackPolicy stack;
  Lasts lasts;
  ClockKind clock = ClockKind::Holder;
  Id clockStat = kNoId;
  Id diesPool = kNoId, diesEvent = kNoId;
  Id fallsPool = kNoId, fallsEvent = kNoId;
  bool preventsDeath = false;
  bool suspendsAll = false;
  TagSet suspendsExcept = 0;
  Id orderBody = kNoId;
  TagSet exclusive = 0;
  uint32_t grantsBegin = 0, grantCount = 0;       // into idLists
  uint32_t autosBegin = 0, autoCount = 0;         // into autos: the grants it uses by itself
  uint32_t grantVarsBegin = 0, grantVarCount = 0; // into idLists: `grants self.VAR`, its vars
  uint32_t blocksBegin = 0, blockCount = 0;       // into blocks
  uint32_t overridesBegin = 0, overrideCount = 0; // into linkOverrides
  uint32_t modifiersBegin = 0, modifierCount = 0; // into modifiers
  uint32_t rulesBegin = 0, ruleCount = 0;         // into rules
  uint32_t line = 0;
};

enum class TargetKind : uint8_t { None, Self, One, Many, Point, Direction };
enum class Side : uint8_t { Any, Enemy, Ally };

struct Cost {
  Id pool = kNoId;
  Id amountBody = kNoId;
  Id link = kNoId; // on holder.LINK
  bool upfront = false;
};

struct Requirement {
  Id body = kNoId;
  Id leftBody = kNoId, rightBody = kNoId; // a comparison's two sides, for the refusal's numbers
  Id text = kNoId; // a name-table string, or kNoId
};

struct Ability {
  Id name = 0;
  TagSet tags = 0;
  TargetKind target = TargetKind::None;
  Side side = Side::Any;
  bool upTo = false;
  bool distinct = false;
  uint32_t targetCount = 1;
  TagSet targetHaving = 0, targetUnless = 0;
  Id withinBody = kNoId;
  uint32_t takesBegin = 0, takeCount = 0; // props, into idLists
  uint32_t listedBegin = 0, listedCount = 0; // its tags as its tags line lists them, into idLists
  uint32_t requiresBegin = 0, requireCount = 0;
  uint32_t costsBegin = 0, costCount = 0;
  Id cooldownEffect = kNoId; // ABILITY.cooldown
  Id steps = kNoId;
  uint32_t line = 0;
};

struct ArchetypeValue {
  Id value = kNoId; // a stat (base) or a pool (with)
  Id link = kNoId;  // with LINK = ACTOR
  Id body = kNoId;
};

struct Archetype {
  Id name = 0;
  TagSet tags = 0;
  uint32_t basesBegin = 0, baseCount = 0; // into archetypeValues
  uint32_t withBegin = 0, withCount = 0;  // into archetypeValues
  uint32_t poolsBegin = 0, poolCount = 0; // pools it has, into idLists
  uint32_t fullBegin = 0, fullCount = 0;  // into idLists
  uint32_t hasBegin = 0, hasCount = 0;    // into archetypeValues: effect, stacks
  uint32_t grantsBegin = 0, grantCount = 0; // into idLists
  uint32_t autosBegin = 0, autoCount = 0;   // into autos
  uint32_t givesBegin = 0, giveCount = 0;   // into idLists
};

// ---- bodies ------------------------------------------------------------------

enum class BodyKind : uint8_t { Formula, Steps };

// The slots a world holds for steps' names, every rule nested in another
// at once: a body's own past what this holds is none a pack may give.
inline constexpr uint32_t kLocalSlots = 1 << 16;

struct Body {
  BodyKind kind = BodyKind::Formula;
  Id root = kNoId;                     // Formula: its expression
  uint32_t stepsBegin = 0, stepsEnd = 0; // Steps: its top-level steps
  uint32_t localCount = 0;             // slots past LEDGER_SLOT_FIRST_LOCAL
  uint32_t line = 0;                   // where it stands, for faults
  uint32_t file = 0;
};

enum class ExprOp : uint8_t {
  Const,  // imm
  Local,  // locals[imm]
  Var,    // vars[imm]
  Neg, Not,
  Add, Sub, Mul, Div,
  Eq, Ne, Lt, Le, Gt, Ge,
  And, Or, // short-circuit: 1 or 0
  Min, Max, Floor, Ceil, Round, Trunc, Abs, Clamp, If,
  Pow, Root, // a, and the power or root in imm
  Read,      // the world answers: reads[imm], operands args
  Fold,      // sum/highest/lowest/count over a list: folds[imm]
};

struct Expr {
  ExprOp op = ExprOp::Const;
  uint32_t a = kNoId, b = kNoId, c = kNoId;
  int64_t imm = 0;
  uint32_t argsBegin = 0, argCount = 0; // into exprArgs
};

enum class FoldKind : uint8_t { Sum, Highest, Lowest, Count };
struct Fold {
  FoldKind kind = FoldKind::Sum;
  Id query = kNoId;       // the list: queries[query], its operands the Fold's args
  Id item = kNoId;        // the formula read for each, as it (kNoId: count)
};

enum class ReadOp : uint8_t {
  Value,        // args: actor; a = value
  ValueExcept,  // args: actor; a = value, tags = the terms left out
  Link,         // args: actor; a = link
  GlobalLink,   // a = link
  Curve,        // args: x; a = curve
  Has,          // args: actor; a = effect or kNoId, tags = a tag
  HasHandle,    // args: instance
  Stacks,       // args: actor [, from]; a = effect, b = 1 with a from
  HighestStacks,
  CountEffect,  // args: actor [, from]; a = effect
  CountTag,     // args: actor; tags
  EventField,   // a = EventField
  EventProp,    // a = prop
  EventActor,   // a = the slot-like actor of the event: EventRole
  InstanceField, // args: instance; a = InstanceField
  InstanceVar,  // args: instance; a = var index
  ArchetypeStat, // a = archetype, b = stat
  TagOf,        // tag(ABILITY, TAG): args: ability; a = tag
  Portion,      // a = tag: what the change in hand holds of a type
  FirstOf,      // a = query: the first a held(...) finds, a handle (0: none); its operands args
  // A filter's words, read of the event in hand:
  EventKind,      // its kind's id + 1 (raw, compared with a constant)
  EventPool,      // its pool's id + 1 (raw), 0 with none
  EventTags,      // 1 if it carries every tag of `tags` (a = 0) or any (a = 1)
  EventPrevented, // 1 if a before rule prevented it
  Relation,       // args: who, holder; a = Who: 1 if who stands so to the holder
  // args: who, holder; a = Who: 1 if a target the activation the event
  // descends from named is who (Holder, Actor) or stands so to the holder
  EventTargeting,
};

enum class EventField : uint8_t { Amount, Sent, Landed, Overflow, Before, After, X };
// Target: an activation's target; any other event's, its subject.
enum class EventRole : uint8_t { Subject, Source, Credit, Ability, Instance, Grant, Target };
enum class InstanceField : uint8_t { Stacks, Remaining, Elapsed, Source, Credit, Holder, Suspended };

struct Read {
  ReadOp op = ReadOp::Value;
  Id a = kNoId, b = kNoId;
  TagSet tags = 0;
};
// A Read's b for has, count and portion of a tag given as a value (self.VAR,
// tag(...)): the tag is its last operand, a tag value (its id + 1, 0 none).
inline constexpr Id kTagOperand = 2;

enum class QueryKind : uint8_t {
  Actor,        // one actor: args[0]
  Targets,      // the order's targets
  EventTargets, // the actors an event names
  Search,       // all / up to / N random / a random over actors by side
  Held,         // held(ACTOR ...): args[0] the actor
};
enum class Quantifier : uint8_t { All, UpTo, Random, NRandom };
enum class Subject : uint8_t { Actors, Enemies, Allies, OtherAllies, Others };

struct Query {
  QueryKind kind = QueryKind::Actor;
  Quantifier quantifier = Quantifier::All;
  Subject subject = Subject::Actors;
  TagSet having = 0, unless = 0;
  Id whenBody = kNoId;   // read for each as it
  bool hasCount = false; // args: [count] then [of / from]
  bool hasOf = false;
  Id effect = kNoId;     // Held: only instances of this effect (kNoId: any)
  uint32_t keysBegin = 0, keyCount = 0; // Held: by ORDER, into sortKeys (oldest first unsaid)
  bool hasFrom = false;  // Held: from ACTOR
};

enum class StepOp : uint8_t {
  If,      // args[0] the condition; body, else
  ForEach, // queries[info] over args; each in slot
  Repeat,  // args[0] the count
  Let,     // slot = args[0]
  SetVar,  // vars[slot] (=, +=, -= in info) args[0]
  Action,  // actions[info]: the kernel's step with args
};

struct Step {
  StepOp op = StepOp::Action;
  uint32_t info = 0;
  uint32_t argsBegin = 0, argCount = 0; // expressions, into exprArgs
  uint32_t bodyBegin = 0, bodyEnd = 0;  // child steps
  uint32_t elseBegin = 0, elseEnd = 0;
  uint32_t slot = 0;
  uint32_t line = 0;
};

// A step the kernel carries out, and the before rules' changes.
enum class ActionOp : uint8_t {
  Deal, Heal, Gain, Lose, SetPool, Apply, RemoveEffect, RemoveHandle, RemoveTag, RemoveCooldown,
  Raise, Create, Destroy, Revive, Cast, SetLink, ScaleDuration, AddDuration, AtMostDuration,
  SetInstanceVar, // a var, by name (a), of the instance its first operand holds; =, +=, -= (b)
  // before rules only
  Prevent, Convert, Scale, SetProp, AddAmount, Reduce, AtMost, AtLeast, Absorb, Redirect,
};

// What an action's operands are, in order; each flag present adds one.
struct Action {
  ActionOp op = ActionOp::Deal;
  Id a = kNoId, b = kNoId, c = kNoId; // the effect, pool, event, archetype, link, tag …;
                                      // scale's and convert's c: a body read once a portion;
                                      // a remove cooldown's ability, kNoId where a var or a
                                      // name holds it: then an operand after its targets
  uint32_t listBegin = 0, listCount = 0; // into idLists: a deal's portion tags (TagSets), a with's names
  TagSet tags = 0;       // tagged / types / unless
  Id query = kNoId;      // its targets: queries[query], operands first
  uint32_t queryArgCount = 0;
  uint32_t withBegin = 0, withCount = 0; // into idLists: what its with sets (a prop, a var,
                                         // a pool, or a link with kWithLink), values last
  uint32_t flags = 0;    // ActionFlag
  uint32_t resultSlot = kNoId; // as NAME: where its row counts go
  uint32_t line = 0;
};

namespace flags {
enum ActionFlag : uint32_t {
  kHasAmount = 1u << 0,
  kHasFrom = 1u << 1,
  kSourceless = 1u << 2,
  kHasUpTo = 1u << 3,
  kHasStacks = 1u << 4,
  kForTime = 1u << 5,
  kForTurns = 1u << 6,
  kForCount = 1u << 7,
  kChain = 1u << 8,      // prevent chain
  kFree = 1u << 9,
  kNoCooldown = 1u << 10,
  kIntoVar = 1u << 11,
  kIntoPool = 1u << 12,
  kToNone = 1u << 13,
  kHasBy = 1u << 14,
  kHasOn = 1u << 15,
  kHasCount = 1u << 16,
  kRoundFloor = 1u << 17,
  kRoundRound = 1u << 18,
  kHasAs = 1u << 19,
  kGranted = 1u << 20, // cast granted: the rule's effect's grants, having c's tags
  kAgain = 1u << 21,   // cast event.ability again
  kTagInVar = 1u << 22, // convert's b, add's a, remove all's a: the index of the var holding the tag
};
} // namespace flags
using namespace flags;

// A with's entry naming a link, not a pool (create's with).
inline constexpr Id kWithLink = 1u << 31;

struct Point {
  int64_t x = 0, y = 0;
};

struct Tables {
  uint32_t version = 1;
  // Time is counted in millionths of a unit: a tick, or where the rate's
  // seconds don't divide its ticks (rate 20 / 3), the part of a tick that both
  // a tick and a second are a whole number of (a third), so every duration
  // written to six places of a second is exact.
  int64_t unitsPerTick = 1;               // whole
  int64_t unitsPerSecond = 1'000'000;     // millionths; with no rate, 1 tick a second
  Id timeStat = kNoId;
  Id allegiance = kNoId;
  Id damagePool = kNoId;
  Id turnEvent = kNoId;

  std::vector<std::string> names; // every name and text the tables point at
  uint32_t tagWords = 1;
  std::vector<uint64_t> tagBits;
  std::vector<Tag> tags;
  std::vector<Event> events;
  std::vector<Value> values;
  std::vector<Link> links;
  std::vector<Prop> props;
  std::vector<Id> stages;     // names, in order
  std::vector<Id> categories; // names
  std::vector<Curve> curves;
  std::vector<Point> curvePoints;
  std::vector<Effect> effects;
  std::vector<Var> vars;
  std::vector<Block> blocks;
  std::vector<LinkOverride> linkOverrides;
  std::vector<Modifier> modifiers;
  std::vector<Rule> rules;
  std::vector<Ability> abilities;
  std::vector<Cost> costs;
  std::vector<Requirement> requirements;
  std::vector<Archetype> archetypes;
  std::vector<ArchetypeValue> archetypeValues;
  std::vector<Id> idLists;
  std::vector<AutoGrant> autos;
  std::vector<SortKey> sortKeys;
  std::vector<std::string> files; // the catalog's files, for faults' lines

  std::vector<Body> bodies;
  std::vector<Expr> exprs;
  std::vector<uint32_t> exprArgs;
  std::vector<Fold> folds;
  std::vector<Read> reads;
  std::vector<Query> queries;
  std::vector<Step> steps;
  std::vector<Action> actions;

  std::string_view name(Id id) const { return id < names.size() ? std::string_view(names[id]) : std::string_view("?"); }
  // A definition's id by its name in one of the lists above (abilities,
  // archetypes, values …), or kNoId: what a host looks up once as it loads
  // a pack.
  template <typename T> Id find(const std::vector<T> &list, std::string_view n) const {
    for (Id i = 0; i < list.size(); ++i)
      if (name(list[i].name) == n)
        return i;
    return kNoId;
  }
  const uint64_t *tagSet(TagSet set) const { return tagBits.data() + size_t(set) * tagWords; }
};

// The blob a compiled pack carries, and the catalog hash over it.
std::string serialize(const Tables &tables);
// Reads a blob back; false, with why, when it is no pack of this format or
// its tables are no engine's to run (pack_check.h).
bool deserialize(std::string_view blob, Tables &tables, std::string &why);
uint64_t hashBlob(std::string_view blob);
// The catalog's hash: its tables' and bodies', not the paths its files were
// read from, so a pack built from a catalog is that catalog's however it
// was named.
uint64_t catalogHash(const Tables &tables);

} // namespace ledger::pack
