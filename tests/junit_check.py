"""Reads toolproof's JUnit XML the way its consumers do, and says what they would reject.

usage: junit_check.py SCHEMA [--plain XML...] [--file-attrs XML...]

--plain       files written without `--junit-file-attrs`: they must validate against SCHEMA
              (tests/fixtures/junit/junit-jenkins.xsd, the rules of the Jenkins xUnit plugin).
--file-attrs  files written with `--junit-file-attrs`: every `line` needs a `file` and is a
              positive number, and once `file`/`line` are taken off the testcases the file
              must validate too (nothing else may differ from the plain shape).

Every file must also parse with junitparser, with suite and root counts that agree with the
testcases they hold, and every testcase must have a classname under `toolproof.` and a time.
Prints one line per problem and exits 1 when there is any; prints `ok: N files` otherwise.
"""

import argparse
import sys
import xml.etree.ElementTree as ET

import xmlschema
from junitparser import Error, Failure, JUnitXml, Skipped


def schema_problems(schema, tree, path):
    return [f"{path}: schema: {e.reason} at {e.path}" for e in schema.iter_errors(tree)]


def file_attr_problems(tree, path):
    problems = []
    for case in tree.getroot().iter("testcase"):
        line = case.attrib.pop("line", None)
        file = case.attrib.pop("file", None)
        name = case.get("name")
        if line is not None and file is None:
            problems.append(f"{path}: testcase {name!r} has a line but no file")
        if line is not None and not (line.isdigit() and int(line) > 0):
            problems.append(f"{path}: testcase {name!r} has line={line!r}")
        if file is not None and not file.strip():
            problems.append(f"{path}: testcase {name!r} has an empty file")
    return problems


def count(cases, kind):
    return sum(1 for c in cases if any(isinstance(r, kind) for r in c.result))


def junitparser_problems(path):
    problems = []
    xml = JUnitXml.fromfile(path)
    totals = {"tests": 0, "failures": 0, "errors": 0}
    for suite in xml:
        cases = list(suite)
        found = {
            "tests": len(cases),
            "failures": count(cases, Failure),
            "errors": count(cases, Error),
            "skipped": count(cases, Skipped),
        }
        for key, value in found.items():
            if getattr(suite, key) != value:
                problems.append(
                    f"{path}: suite {suite.name!r}: {key}={getattr(suite, key)}, "
                    f"its testcases say {value}"
                )
        for key in totals:
            totals[key] += found[key]
        for case in cases:
            if not (case.classname or "").startswith("toolproof."):
                problems.append(f"{path}: testcase {case.name!r}: classname {case.classname!r}")
            if case._elem.get("time") is None:
                problems.append(f"{path}: testcase {case.name!r} has no time")
    for key, value in totals.items():
        if getattr(xml, key) != value:
            problems.append(f"{path}: testsuites {key}={getattr(xml, key)}, the suites say {value}")
    return problems


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("schema")
    parser.add_argument("--plain", nargs="*", default=[])
    parser.add_argument("--file-attrs", nargs="*", default=[])
    args = parser.parse_args()
    schema = xmlschema.XMLSchema(args.schema)
    problems = []
    for path, file_attrs in [(p, False) for p in args.plain] + [(p, True) for p in args.file_attrs]:
        tree = ET.parse(path)
        if file_attrs:
            problems += file_attr_problems(tree, path)
        problems += schema_problems(schema, tree, path)
        problems += junitparser_problems(path)
    for p in problems:
        print(p)
    if problems:
        sys.exit(1)
    print(f"ok: {len(args.plain) + len(args.file_attrs)} files")


if __name__ == "__main__":
    main()
