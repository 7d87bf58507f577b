"""The reports' two documents from one description: <stem>.md and a self-contained <stem>.html (its
charts inline, no network needed)."""
import html
import json

from benchkit.core.stats import close


def markdown_table(rows):
    lines = ["| " + " | ".join(rows[0]) + " |", "|" + "---|" * len(rows[0])]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows[1:]]
    return "\n".join(lines)


def html_table(rows):
    head = "".join(f"<th>{html.escape(c)}</th>" for c in rows[0])
    body = "".join("<tr>" + "".join(
        f'<td class="{"fail" if c == "FAIL" else "pass" if c == "PASS" else ""}">{html.escape(str(c))}</td>'
        for c in row) + "</tr>" for row in rows[1:])
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def key_value_rows(mapping):
    """[what, value] rows of a flat description (the environment); nested values as JSON."""
    rows = [["what", "value"]]
    for key, value in mapping.items():
        if key == "builds":
            for build, settings in value.items():
                rows.append([f"settings of {build}", "; ".join(settings) or "Quarkus defaults"])
        elif key == "ergonomics":
            for version, services in value.items():
                for service, jvm in services.items():
                    rows.append([f"JVM of {service}-{version}, as it sized itself there", ergonomics_text(jvm)])
        elif key == "warmup":
            continue  # a section of its own
        elif key == "background_cpu_per_s":
            for version, processes in value.items():
                rows.append([f"background CPU of {version} with no load (CPU ms per second)",
                             ", ".join(f"{process} {1000 * rate:.1f}" for process, rate in processes.items())])
        else:
            rows.append([key, json.dumps(value) if isinstance(value, (dict, list)) else str(value)])
    return rows


def ergonomics_text(jvm):
    limit = f" (CPU limit {jvm['cpu_limit']:g})" if jvm.get("cpu_limit") else ""
    threads = ", ".join(f"{kind} {count}" for kind, count in jvm["threads"].items() if count and kind != "all")
    pools = ", ".join(f"{name} {jvm[key]}" for key, name in POOLS if jvm.get(key) is not None)
    return (f"{jvm['processors']} processors{limit}, {jvm['gc']} GC, {jvm['compiler_threads']} compiler threads"
            f"{'; pools as its metrics report them: ' + pools if pools else ''}; "
            f"threads alive after the warm-up (pools shrink when idle): {threads}, {jvm['threads']['all']} in all")


POOLS = (("worker_pool_size", "worker pool"), ("event_loop_count", "event loops"), ("sql_pool_size", "reactive SQL pool"))


STYLE = ("body{font-family:sans-serif;max-width:960px;margin:2em auto;color:#222}"
         "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:4px 8px;text-align:right}"
         "td:first-child,th:first-child{text-align:left}.pass{color:#1a7f37;font-weight:bold}"
         ".fail{color:#cf222e;font-weight:bold}.chart svg{max-width:100%;height:auto}")


def write(directory, stem, title, subtitle, sections, charts_after, links=()):
    """sections = [(heading, text, [(sub heading, rows)])]; charts_after = {heading: {name: svg}} puts
    those charts (also written as <name>.svg) after that section; links = [(label, relative path)]."""
    for svgs in charts_after.values():
        for name, svg in svgs.items():
            (directory / f"{name}.svg").write_text(svg)
    md = [f"# {title}", "", subtitle, ""]
    for heading, text, tables in sections:
        md += [f"## {heading}", "", text, ""]
        for sub, rows in tables:
            md += ([f"### {sub}", ""] if sub else []) + [markdown_table(rows), ""]
        md += [f"![{name}]({name}.svg)" for name in charts_after.get(heading, {})] + [""]
    if links:
        md += ["## Files", ""] + [f"- [{label}]({path})" for label, path in links] + [""]
    (directory / f"{stem}.md").write_text("\n".join(md))

    body = [f"<h1>{html.escape(title)}</h1>", f"<p>{html.escape(subtitle)}</p>"]
    for heading, text, tables in sections:
        body += [f"<h2>{html.escape(heading)}</h2>"] + [f"<p>{html.escape(p)}</p>" for p in text.split("\n\n")]
        for sub, rows in tables:
            body += ([f"<h3>{html.escape(sub)}</h3>"] if sub else []) + [html_table(rows)]
        body += [f'<div class="chart">{svg}</div>' for svg in charts_after.get(heading, {}).values()]
    if links:
        body += ["<h2>Files</h2><ul>"] + [f'<li><a href="{html.escape(path)}">{html.escape(label)}</a></li>'
                                          for label, path in links] + ["</ul>"]
    (directory / f"{stem}.html").write_text(
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>'
        f"<style>{STYLE}</style></head><body>{''.join(body)}</body></html>\n")


# ---------- figures as text

def formatted(value, pattern):
    return "–" if value is None else pattern.format(value)


def ratio_text(ratio):
    """2.35× (2.16–2.67): the median of the rounds' ratios, the lowest and the highest; – without one."""
    if not ratio or ratio["median"] is None:
        return "–"
    return f"{ratio['median']:.2f}× ({ratio['low']:.2f}–{ratio['high']:.2f})"


def interval(figure, pattern="{:,.0f}"):
    if figure["median"] is None:
        return "–"
    if close(figure["low"], figure["high"]):
        return pattern.format(figure["median"])
    return f"{pattern.format(figure['median'])} ({pattern.format(figure['low'])}–{pattern.format(figure['high'])})"
