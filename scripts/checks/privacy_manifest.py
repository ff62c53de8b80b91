#!/usr/bin/env python3
"""Fails when a library target calls an API of Apple's required-reason list without a privacy
manifest that declares it: App Store Connect flags such an upload (ITMS-91053).

For each target under Sources/: if its Swift code (comments aside) calls an API of a category
below, its folder must hold PrivacyInfo.xcprivacy declaring that category with a reason Apple
allows for it, and Package.swift must copy the file as the target's resource. A manifest must
also not declare a category the code does not use, nor say it tracks.

Usage: privacy_manifest.py [ROOT]   |   privacy_manifest.py --self-test
"""
import os
import plistlib
import re
import sys
import tempfile

# Apple's list of required-reason APIs ("Describing use of required reason API"), by category:
# the calls as Swift spells them, and the reasons allowed.
CATEGORIES = {
    "NSPrivacyAccessedAPICategoryFileTimestamp": (
        r"\b(stat|fstat|lstat|fstatat|getattrlist|fgetattrlist|getattrlistbulk|getattrlistat|setattrlist|setattrlistbulk)\(|"
        r"\.(creationDate|modificationDate|fileModificationDate|contentModificationDateKey|creationDateKey)\b",
        {"DDA9.1", "C617.1", "3B52.1", "0A2A.1"}),
    "NSPrivacyAccessedAPICategorySystemBootTime": (r"\bsystemUptime\b|\bmach_absolute_time\(", {"35F9.1", "8FFB.1", "3D61.1"}),
    "NSPrivacyAccessedAPICategoryDiskSpace": (
        r"\bvolume(Available|Total)Capacity\w*Key\b|\bsystem(Free)?Size\b|\b(f?statv?fs)\(", {"85F4.1", "E174.1", "7D9E.1", "B728.1"}),
    "NSPrivacyAccessedAPICategoryActiveKeyboards": (r"\bactiveInputModes\b", {"3EC4.1", "54BD.1"}),
    "NSPrivacyAccessedAPICategoryUserDefaults": (r"\bUserDefaults\b", {"CA92.1", "1C8F.1", "C56D.1", "AC6B.1"}),
}


def used_categories(folder):
    used = {}
    for directory, _, files in os.walk(folder):
        for name in sorted(files):
            if not name.endswith(".swift"):
                continue
            path = os.path.join(directory, name)
            with open(path, encoding="utf-8") as source:
                for number, line in enumerate(source, 1):
                    code = line.split("//", 1)[0]
                    for category, (pattern, _) in CATEGORIES.items():
                        if re.search(pattern, code):
                            used.setdefault(category, "%s:%d" % (path, number))
    return used


def check(root):
    problems = []
    with open(os.path.join(root, "Package.swift"), encoding="utf-8") as manifest:
        package = manifest.read()
    sources = os.path.join(root, "Sources")
    for target in sorted(os.listdir(sources)):
        folder = os.path.join(sources, target)
        if not os.path.isdir(folder):
            continue
        used = used_categories(folder)
        manifest_path = os.path.join(folder, "PrivacyInfo.xcprivacy")
        if not used and not os.path.exists(manifest_path):
            continue
        if not os.path.exists(manifest_path):
            problems.append("%s calls required-reason APIs (%s) and has no PrivacyInfo.xcprivacy"
                            % (target, ", ".join("%s at %s" % item for item in sorted(used.items()))))
            continue
        with open(manifest_path, "rb") as data:
            try:
                privacy = plistlib.load(data)
            except Exception as error:  # noqa: BLE001 - any parse failure is the finding
                problems.append("%s: PrivacyInfo.xcprivacy is not a property list (%s)" % (target, error))
                continue
        declared = {}
        for entry in privacy.get("NSPrivacyAccessedAPITypes", []):
            declared[entry.get("NSPrivacyAccessedAPIType")] = set(entry.get("NSPrivacyAccessedAPITypeReasons", []))
        for category, where in sorted(used.items()):
            reasons = declared.get(category)
            if not reasons:
                problems.append("%s: %s is used (%s) but not declared" % (target, category, where))
            elif not reasons <= CATEGORIES[category][1]:
                problems.append("%s: %s has reasons Apple does not allow for it: %s"
                                % (target, category, ", ".join(sorted(reasons - CATEGORIES[category][1]))))
        for category in sorted(set(declared) - set(used)):
            problems.append("%s: %s is declared but not used" % (target, category))
        if privacy.get("NSPrivacyTracking") is not False:
            problems.append("%s: NSPrivacyTracking must be false" % target)
        block = re.search(r'\.target\(\s*name:\s*"%s",(?:(?!\.target\(|\.testTarget\(|\.executableTarget\().)*' % re.escape(target), package, re.S)
        if not block or '.copy("PrivacyInfo.xcprivacy")' not in block.group(0):
            problems.append('%s: Package.swift does not copy PrivacyInfo.xcprivacy (resources: [.copy("PrivacyInfo.xcprivacy")])' % target)
    return problems


MANIFEST = """<?xml version="1.0" encoding="UTF-8"?>
<plist version="1.0"><dict><key>NSPrivacyTracking</key><false/><key>NSPrivacyAccessedAPITypes</key><array>
<dict><key>NSPrivacyAccessedAPIType</key><string>%s</string><key>NSPrivacyAccessedAPITypeReasons</key><array><string>%s</string></array></dict>
</array></dict></plist>"""


def self_test():
    with tempfile.TemporaryDirectory() as root:
        def write(path, text):
            os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
            with open(os.path.join(root, path), "w", encoding="utf-8") as out:
                out.write(text)
        write("Package.swift", '.target(\n name: "A",\n resources: [.copy("PrivacyInfo.xcprivacy")]\n),\n.target(\n name: "B"\n)')
        write("Sources/A/File.swift", "var info = stat()\nguard stat(path, &info) == 0 else { return }\n")
        write("Sources/B/File.swift", "// stat(path) in a comment only\nlet x = 1\n")
        assert any("A calls required-reason APIs" in p for p in check(root)), check(root)
        write("Sources/A/PrivacyInfo.xcprivacy", MANIFEST % ("NSPrivacyAccessedAPICategoryFileTimestamp", "C617.1"))
        assert check(root) == [], check(root)
        write("Sources/A/PrivacyInfo.xcprivacy", MANIFEST % ("NSPrivacyAccessedAPICategoryFileTimestamp", "E174.1"))
        assert any("reasons Apple does not allow" in p for p in check(root)), check(root)
        write("Sources/A/PrivacyInfo.xcprivacy", MANIFEST % ("NSPrivacyAccessedAPICategoryFileTimestamp", "C617.1"))
        write("Sources/B/Defaults.swift", "let d = UserDefaults.standard\n")
        assert any("B calls required-reason APIs" in p for p in check(root)), check(root)
        write("Sources/B/PrivacyInfo.xcprivacy", MANIFEST % ("NSPrivacyAccessedAPICategoryUserDefaults", "CA92.1"))
        assert any("B: Package.swift does not copy" in p for p in check(root)), check(root)
        write("Sources/B/Defaults.swift", "let d = 1\n")
        assert any("declared but not used" in p for p in check(root)), check(root)
    print("privacy_manifest.py self-test passed")


if __name__ == "__main__":
    if sys.argv[1:] == ["--self-test"]:
        self_test()
    else:
        root = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        found = check(root)
        for problem in found:
            print(problem, file=sys.stderr)
        if found:
            sys.exit(1)
        print("privacy manifests: every target that calls a required-reason API declares it")
