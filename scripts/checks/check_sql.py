#!/usr/bin/env python3
"""Audits the Java sources for SQL built at run time (part of make test). Two rules:

1. A chain of `+` that holds an SQL literal (a string with an upper-case SQL keyword) may join only
   string literals and UPPER_CASE constants: no variable, parameter or call result ever becomes SQL
   text. Nor may an SQL literal be completed with String.format, .formatted or String.join.
2. The SQL argument of a query method (preparedQuery, query, prepareStatement, createQuery,
   createNativeQuery, Panache find/list/stream/count/delete/update, the tests' Database.execute/plan)
   is a literal or an UPPER_CASE constant, never a variable.

Values always travel as bind parameters ($1, ?1, ?). `--self-test` proves that both rules bite.
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
SQL_KEYWORD = re.compile(r"\b(SELECT|INSERT|UPDATE|DELETE|FROM|WHERE|EXPLAIN|CREATE|DROP|ALTER|GRANT|TRUNCATE)\b")
STRING = r'"""[\s\S]*?"""|"(?:[^"\\\n]|\\.)*"'
# An operand of +: a string, or a name with optional calls and member accesses, e.g. identifier(name).x
OPERAND = rf'(?:{STRING}|[A-Za-z_][\w.]*(?:\((?:[^()]|\([^()]*\))*\))?(?:\.[\w]+(?:\((?:[^()]|\([^()]*\))*\))?)*)'
CHAIN = re.compile(rf'{OPERAND}(?:\s*\+\s*{OPERAND})+')
QUERY_CALL = re.compile(
    r'\b(preparedQuery|query|prepareStatement|createQuery|createNativeQuery|Database\.execute|Database\.plan|'
    r'find|list|stream|count|delete|update)\(\s*(' + OPERAND + r')\s*[,)]')
# Panache's names are common words (a Java stream, a list): their argument counts only when it is a String.
PANACHE = {"find", "list", "stream", "count", "delete", "update"}
FORMATTED = re.compile(rf'(?:String\.format|String\.join)\(\s*({STRING})|({STRING})\s*\.formatted\(')
CONSTANT = re.compile(r"[A-Z][A-Z0-9_]*$")


def strip_comments(source):
    """Removes comments but keeps strings and line numbers."""
    out, i = [], 0
    pattern = re.compile(rf'{STRING}|//[^\n]*|/\*[\s\S]*?\*/')
    for match in pattern.finditer(source):
        out.append(source[i:match.start()])
        text = match.group(0)
        out.append(text if text.startswith('"') else re.sub(r"[^\n]", " ", text))
        i = match.end()
    out.append(source[i:])
    return "".join(out)


def is_string(operand):
    return operand.startswith('"')


def is_constant(operand):
    return is_string(operand) or bool(CONSTANT.match(operand.split(".")[-1])) and "(" not in operand


def findings(source):
    """[(line, message)] for one Java source."""
    code = strip_comments(source)
    line_of = lambda offset: code.count("\n", 0, offset) + 1  # noqa: E731
    found = []
    for chain in CHAIN.finditer(code):
        operands = re.findall(OPERAND, chain.group(0))
        if any(is_string(o) and SQL_KEYWORD.search(o) for o in operands):
            built = [o for o in operands if not is_constant(o)]
            if built:
                found.append((line_of(chain.start()), f"SQL built from {', '.join(built)}"))
    for call in FORMATTED.finditer(code):
        literal = call.group(1) or call.group(2)
        if SQL_KEYWORD.search(literal):
            found.append((line_of(call.start()), "SQL completed by format/join"))
    for call in QUERY_CALL.finditer(code):
        method, argument = call.groups()
        if method in PANACHE and not (is_string(argument) or re.search(rf"\bString\s+{re.escape(argument)}\b", code)):
            continue
        if not is_constant(argument):
            found.append((line_of(call.start()), f"SQL argument '{argument}' is not a literal or constant"))
    return found


def audit(directory):
    problems = []
    for path in sorted(directory.rglob("*.java")):
        if "target" in path.parts:
            continue
        for line, message in findings(path.read_text()):
            problems.append(f"{path.relative_to(ROOT)}:{line}: {message}")
    return problems


BAD = {
    "a value concatenated into a query": 'client.preparedQuery("SELECT * FROM authors WHERE name = \'" + name + "\'")',
    "a query kept in a variable first": 'String sql = "SELECT * FROM articles LIMIT " + amount;',
    "a call result concatenated": 'statement.execute("CREATE ROLE " + identifier(name));',
    "a variable as the query": "client.preparedQuery(sql).execute(Tuple.of(1));",
    "format": 'String q = String.format("DELETE FROM articles WHERE id = %d", id);',
    "formatted": 'var q = "UPDATE articles SET title = \'%s\'".formatted(title);',
    "a Panache query from a variable": "String query = name; Author.find(query, name);",
}
GOOD = [
    'private static final String FIND = "SELECT " + COLUMNS + " FROM articles WHERE id = $1";',
    "client.preparedQuery(FIND).execute(Tuple.of(id));",
    'find("name", name).firstResultOptional();',
    "repository.delete(pending); StreamSupport.stream(rows.spliterator(), false);",
    'String message = "Author " + name + " was not found";  // prose, not SQL',
    '// String sql = "SELECT " + name;  (a comment)',
    'Database.execute("INSERT INTO articles (title) SELECT \'Bulk \' || n" + " FROM generate_series(1, 10) AS n");',
]


def self_test():
    failures = [f"not caught: {name}: {code}" for name, code in BAD.items() if not findings(code)]
    failures += [f"false alarm: {code} -> {findings(code)}" for code in GOOD if findings(code)]
    for failure in failures:
        print(failure)
    print(f"check_sql self-test: {len(BAD)} bad and {len(GOOD)} good samples, {len(failures)} wrong")
    return not failures


def main():
    if "--self-test" in sys.argv:
        sys.exit(0 if self_test() else 1)
    problems = audit(ROOT / "services")
    for problem in problems:
        print(problem)
    files = sum(1 for p in (ROOT / "services").rglob("*.java") if "target" not in p.parts)
    print(f"check_sql: {files} Java files, {len(problems)} places where SQL is built at run time")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
