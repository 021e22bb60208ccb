# Writes tags.ledger declaring N tags of its own (Kind and Kind.T0 ..) and a
# play hearing the last of them.
import sys
out, n = sys.argv[1], int(sys.argv[2])
last = f"Kind.T{n - 2}"
lines = ["tags Kind"] + [f"tags Kind.T{i}" for i in range(n - 1)]
lines += ["pool Health max 100", "",
          "effect Marked", f"    tags {last}", "",
          "effect Thorns",
          f"    before Damage of holder having {last}",
          "        add 5", "",
          "archetype Dummy", "    full Health", "    has Thorns", ""]
open(f"{out}/tags.ledger", "w").write("\n".join(lines))
open(f"{out}/tags.play", "w").write(f"""catalog tags.ledger

play "the last tag a catalog may declare is carried and heard"
    make d Dummy
    apply Marked to d
    expect d has {last}
    deal 10 to d {last}
    expect d.Health = 85 from content: 10 and Thorns' 5
""")
