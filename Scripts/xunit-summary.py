#!/usr/bin/env python3
"""Sums the XCTest and Swift Testing xunit reports in a folder into one line: 'N passed, N failed, N skipped'."""
import glob
import os
import sys
import xml.etree.ElementTree as ET

folder = sys.argv[1] if len(sys.argv) > 1 else "."
passed = failed = skipped = 0
for path in sorted(glob.glob(os.path.join(folder, "xunit*.xml"))):
    try:
        tree = ET.parse(path)
    except ET.ParseError as error:
        print(f"cannot read {path}: {error}", file=sys.stderr)
        failed += 1
        continue
    for case in tree.iter("testcase"):
        if case.find("failure") is not None or case.find("error") is not None:
            failed += 1
        elif case.find("skipped") is not None:
            skipped += 1
        else:
            passed += 1
line = f"{passed} passed, {failed} failed"
if skipped:
    line += f", {skipped} skipped"
print(line)
