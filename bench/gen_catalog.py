#!/usr/bin/env python3
"""Writes a generated catalog of N definitions in the ledger language.

usage: gen_catalog.py N OUT.ledger [--seed S] [--prefix P]

The mix is the skirmish's (bench/skirmish.ledger) scaled up: stats; pools
with a maximum and a regen; buffs and debuffs modifying stats; damage and
healing over time (`every` rules, stacking); shields (`before Damage of
holder` absorbing into a var) and thorns (`after Damage` dealing back);
abilities with costs, cooldowns and several steps; curves; and archetypes
with bases, `has` and `grants`. The same N and seed write the same file.

--prefix P writes filler for another catalog: every name it declares starts
with P, the catalog-wide lines (rate, link, allegiance) are left to the
catalog it is read with, and its shields absorb at a stage of their own, so
they need no order against that catalog's.
"""
import argparse
import random
import re

# Shares of the definitions, by kind; what is left over goes to effects.
SHARES = {"stat": 0.08, "pool": 0.02, "curve": 0.01, "ability": 0.33, "archetype": 0.12}
# Shares of the effects, by flavour.
EFFECT_MIX = [("buff", 0.35), ("dot", 0.25), ("shield", 0.15), ("thorns", 0.10),
              ("aura", 0.15)]


class Catalog:
    def __init__(self, n, rng):
        self.rng = rng
        counts = {kind: int(n * share) for kind, share in SHARES.items()}
        # The skirmish's own values come first: every catalog has them.
        counts["stat"] = max(counts["stat"], 6)
        counts["pool"] = max(counts["pool"], 2)
        counts["curve"] = max(counts["curve"], 1)
        counts["archetype"] = max(counts["archetype"], 1)
        counts["ability"] = max(counts["ability"], 1)
        counts["effect"] = max(n - sum(counts.values()), len(EFFECT_MIX))
        self.counts = counts
        self.stats = ["MaxHealth", "MaxMana", "ManaRegen", "Power", "Armor", "Level"]
        self.stats += [f"Stat{i}" for i in range(counts["stat"] - len(self.stats))]
        self.pools = ["Health", "Mana"] + [f"Pool{i}" for i in range(counts["pool"] - 2)]
        # Each extra pool has its own maximum and regen among the stats.
        self.pool_max = {"Health": "MaxHealth", "Mana": "MaxMana"}
        self.pool_regen = {"Mana": "ManaRegen"}
        self.curves = [f"Curve{i}" for i in range(counts["curve"])]
        self.effects = {flavour: [] for flavour, _ in EFFECT_MIX}
        self.abilities = [f"Ability{i}" for i in range(counts["ability"])]
        self.archetypes = ["Team"] + [f"Archetype{i}" for i in range(1, counts["archetype"])]
        self.lines = []
        self.shield_stage = ""
        # Rules of one phase hearing one event run in the order of their
        # effects' keys: each shield and thorns takes its own.
        self.next_order = 0

    # ---- formulas ----------------------------------------------------------------
    def stat(self):
        return self.rng.choice(self.stats)

    def number(self, low, high):
        return self.rng.randint(low, high)

    def damage_formula(self):
        """A hit's amount from the striker's and the target's stats."""
        r = self.rng
        shape = r.randrange(4)
        a, b = self.stat(), self.stat()
        if shape == 0:
            return f"{self.number(2, 20)} + {a} / {self.number(2, 5)}"
        if shape == 1:
            return (f"max({self.number(1, 5)}, min({self.number(40, 90)}, "
                    f"({a} + {b} * 2) * {r.choice(self.curves)}(target.Armor) / 100))")
        if shape == 2:
            return f"max(1, {a} * {self.number(2, 9)} / 10 - target.Armor / {self.number(2, 6)})"
        return f"if(target.Health < target.MaxHealth / 2, {self.number(8, 30)}, {self.number(3, 12)})"

    def modifier_amount(self, stacking):
        r = self.rng
        shape = r.randrange(3 if stacking else 2)
        if shape == 0:
            return str(self.number(1, 15))
        if shape == 1:
            return f"holder.Level * {self.number(1, 3)}"
        return f"{self.number(1, 4)} * self.stacks"

    # ---- definitions -------------------------------------------------------------
    def emit(self, *lines):
        self.lines.extend(lines)
        self.lines.append("")

    def header(self, filler):
        catalog_wide = ["stages Ward"] if filler else ["rate 20", "link side", "allegiance side"]
        self.shield_stage = " at Ward" if filler else ""
        self.emit(f"# A generated catalog: {sum(self.counts.values())} definitions "
                  "(bench/gen_catalog.py).", *catalog_wide, "tags Reflected Spell Melee Fire Frost")

    def values(self):
        r = self.rng
        mins = {"MaxHealth": "min 1", "MaxMana": "min 0", "ManaRegen": "default 5",
                "Power": "default 10", "Armor": "default 0", "Level": "default 1"}
        for name in self.stats:
            option = mins.get(name) or r.choice(
                [f"default {self.number(0, 20)}", "min 0", f"default {self.number(1, 5)} min 0"])
            self.emit(f"stat {name} {option}")
        for name in self.pools[2:]:
            self.pool_max[name] = self.stat()
            self.pool_regen[name] = self.stat()
        for name in self.pools:
            regen = f" regen {self.pool_regen[name]} per 1s" if name in self.pool_regen else ""
            self.emit(f"pool {name} max {self.pool_max[name]}{regen}")

    def curve_defs(self):
        for name in self.curves:
            a, b, c = sorted(self.rng.sample(range(0, 80), 3))
            self.emit(f"curve {name}", f"    {a} 100", f"    {b} {self.number(60, 90)}",
                      f"    {c} {self.number(20, 50)}")

    def effect_defs(self):
        self.emit("effect Mortal", "    dies at no Health")
        total = self.counts["effect"] - 1
        made = 0
        for k, (flavour, share) in enumerate(EFFECT_MIX):
            count = total - made if k == len(EFFECT_MIX) - 1 else int(total * share)
            made += count
            for i in range(count):
                name = f"{flavour.capitalize()}{i}"
                self.effects[flavour].append(name)
                getattr(self, flavour)(name)

    def modifiers(self, stacking):
        r = self.rng
        lines = []
        # Level is read by modifiers' amounts, so none modifies it: no stat
        # reads itself through an effect's terms.
        modifiable = [s for s in self.stats[3:] if s != "Level"]
        for stat in r.sample(modifiable, r.randint(1, 3)):
            op = r.choice(["+", "+", "-", "x"])
            if op == "x":
                lines.append(f"    {stat} x 1.{self.number(1, 5)}")
            elif op == "-" and r.random() < 0.5:
                lines.append(f"    {stat} - {self.number(5, 30)}%")
            else:
                lines.append(f"    {stat} {op} {self.modifier_amount(stacking)}")
        return lines

    def buff(self, name):
        stacking = self.rng.random() < 0.4
        lines = [f"effect {name}"]
        if stacking:
            lines.append(f"    stack add max {self.number(2, 5)}")
        lines.append(f"    lasts {self.number(2, 10)}s")
        self.emit(*lines, *self.modifiers(stacking))

    def dot(self, name):
        r = self.rng
        period = r.choice(["1s", "500ms", "2s"])
        if r.random() < 0.7:
            step = (f"        deal {self.number(1, 4)} + self.stacks / 2 "
                    f"{r.choice(['Fire', 'Frost'])} to holder from source")
        else:
            step = f"        heal {self.number(1, 6)} + self.stacks to holder"
        self.emit(f"effect {name}", f"    stack add max {self.number(2, 6)}",
                  f"    lasts {self.number(3, 8)}s", f"    every {period}", step)

    def order(self):
        self.next_order += 1
        return f"    order {self.next_order}"

    def shield(self, name):
        self.emit(f"effect {name}", self.order(), f"    var left = {self.number(10, 60)}",
                  f"    before Damage of holder{self.shield_stage}", "        absorb into self.left")

    def thorns(self, name):
        self.emit(f"effect {name}", self.order(), "    after Damage of holder unless Reflected",
                  f"        deal max(1, event.amount / {self.number(3, 8)}) Reflected "
                  "to event.source")

    def aura(self, name):
        pool = self.rng.choice(self.pools)
        self.emit(f"effect {name}", *self.modifiers(False), "    every 1s",
                  f"        gain {pool} {self.number(1, 3)} on holder")

    def ability_defs(self):
        r = self.rng
        applied = self.effects["buff"] + self.effects["dot"]
        for name in self.abilities:
            lines = [f"ability {name}", f"    tags {r.choice(['Spell', 'Melee'])}"]
            harmful = r.random() < 0.75
            lines.append("    target one enemy" if harmful else "    target self")
            if r.random() < 0.8:
                lines.append(f"    cost {r.choice(['Mana', 'Mana', *self.pools[2:3]])} "
                             f"{self.number(1, 12)}")
            if r.random() < 0.7:
                lines.append(f"    cooldown {r.choice(['500ms', '1s', '2s', '5s'])}")
            if harmful:
                lines.append(f"    deal {self.damage_formula()} to target")
                if r.random() < 0.6:
                    lines.append(f"    apply {r.choice(applied)} to target")
            else:
                lines.append(f"    heal {self.number(5, 20)} + holder.Level to target")
                lines.append(f"    apply {r.choice(self.effects['buff'])} to target")
            self.emit(*lines)

    def archetype_defs(self):
        r = self.rng
        self.emit(f"archetype {self.archetypes[0]}")
        kept = (self.effects["shield"] + self.effects["thorns"] + self.effects["aura"])
        for name in self.archetypes[1:]:
            lines = [f"archetype {name}", f"    base MaxHealth {self.number(500, 2000)}",
                     f"    base MaxMana {self.number(30, 120)}"]
            for stat in r.sample(self.stats[3:], min(4, len(self.stats) - 3)):
                lines.append(f"    base {stat} {self.number(1, 20)}")
            lines.append(f"    full {' '.join(self.pools)}")
            lines.append("    has Mortal")
            for effect in r.sample(kept, min(len(kept), r.randint(1, 3))):
                lines.append(f"    has {effect}")
            for ability in r.sample(self.abilities, min(len(self.abilities), r.randint(2, 4))):
                lines.append(f"    grants {ability}")
            self.emit(*lines)

    def names(self):
        effects = [name for made in self.effects.values() for name in made]
        return (self.stats + self.pools + self.curves + ["Mortal"] + effects + self.abilities +
                self.archetypes + ["Ward"])

    def write(self, prefix=""):
        self.header(filler=bool(prefix))
        self.values()
        self.curve_defs()
        self.effect_defs()
        self.ability_defs()
        self.archetype_defs()
        text = "\n".join(self.lines)
        if prefix:
            declared = re.compile(r"\b(" + "|".join(map(re.escape, self.names())) + r")\b")
            text = declared.sub(lambda m: prefix + m.group(1), text)
        return text


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("definitions", type=int)
    parser.add_argument("out")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--prefix", default="")
    args = parser.parse_args()
    if args.definitions < 20:
        parser.error("a catalog of fewer than 20 definitions leaves a kind out")
    text = Catalog(args.definitions, random.Random(args.seed)).write(args.prefix)
    with open(args.out, "w") as out:
        out.write(text)


if __name__ == "__main__":
    main()
