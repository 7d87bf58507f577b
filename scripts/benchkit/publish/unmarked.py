"""No measured number unmarked: every number with a unit of measurement in README.md and docs/*.md stands between
figure markers (rendered from a committed summary and checked against it, figures.py), unless it is a setting or a
constant, not a measurement: between setting markers (a constant of the harness, rendered from its code), inside
inline code (a command, a property, a value to type), or named by SETTINGS below, each with what it configures.
`figures check` runs it; a measured figure typed by hand fails it."""
import re

# Settings and constants quoted in prose, each a pattern with the words that say what it sets. Short on purpose:
# a value that needs no explaining belongs in inline code.
SETTINGS = {
    r"\+?\d+(?:\.\d+)?\s+ms\s+(?:per\s+(?:author\s+)?look-up|per\s+query|on\s+(?:the|each|every)\s+look-ups?)":
        "latency the map or a fault adds on a hop (LATENCY_AUTHORS_MS, LATENCY_DATABASE_MS, the proxy's toxics)",
    r"\bopen\s+(?:load\s+of\s+)?\d[\d,]*/s": "the open model's arrival rate, a load's setting (RATE, MAP_RATES)",
}
UNIT = (r"(?:×(?!\s*[\d(])|x\b|times\b|/s\b|ms\b|s\b|%|per\s+cent\b|minutes?\b|hours?\b|MiB\b|GiB\b|MB\b|GB\b"
        r"|rps\b|req/s\b|requests\b|answers\b|runs\b)")
NUMBER = re.compile(r"(?<![\w.\-/+])\d[\d,]*(?:\.\d+)?(?:\s?[–-]\s?\d[\d,]*(?:\.\d+)?)?\s?" + UNIT)
MARKED = re.compile(r"<!-- (figure|figures|chart|setting) \S+ .*?<!-- /\1 -->", re.DOTALL)
FENCED = re.compile(r"```.*?```", re.DOTALL)
INLINE_CODE = re.compile(r"`(?:[^`\n]|\n(?!\n))*`")  # may wrap a line, never a paragraph


def blanked(text, pattern):
    """The text with each match of pattern replaced by as many spaces and newlines: lines and columns stay put."""
    return pattern.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


def found(text):
    """[(line, the number with its unit)] of a page's unmarked measured numbers."""
    for pattern in (MARKED, FENCED, INLINE_CODE, *map(re.compile, SETTINGS)):
        text = blanked(text, pattern)
    return [(text.count("\n", 0, m.start()) + 1, m.group(0)) for m in NUMBER.finditer(text)]


def problems(documents, root):
    """A sentence per page with unmarked measured numbers: each number and its line."""
    result = []
    for path in documents:
        numbers = found(path.read_text())
        if numbers:
            shown = ", ".join(f"line {line}: {number!r}" for line, number in numbers[:12])
            result.append(f"{path.relative_to(root)}: {len(numbers)} measured number(s) outside a figure marker: "
                          f"{shown}{' …' if len(numbers) > 12 else ''} (mark it from a summary, or remove it)")
    return result
