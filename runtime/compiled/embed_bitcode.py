#!/usr/bin/env python3
"""Writes a C++ source holding a file's bytes as a constant array.

usage: embed_bitcode.py INPUT OUTPUT NAMESPACE NAME
"""
import sys


def main():
    source, target, namespace, name = sys.argv[1:5]
    data = open(source, "rb").read()
    lines = []
    for i in range(0, len(data), 24):
        lines.append("  " + ", ".join(str(b) for b in data[i:i + 24]) + ",")
    with open(target, "w") as out:
        out.write("// Made by embed_bitcode.py at build time; not edited.\n")
        out.write("#include <cstddef>\n\n")
        out.write(f"namespace {namespace} {{\n")
        out.write(f"alignas(8) extern const unsigned char {name}[] = {{\n")
        out.write("\n".join(lines) + "\n};\n")
        out.write(f"extern const std::size_t {name}Size = {len(data)};\n")
        out.write(f"}} // namespace {namespace}\n")


if __name__ == "__main__":
    main()
