"""A model dossier as Markdown and as HTML, both from its layout (`recipes.dossier_layout`).

The HTML is one self-contained page: inline CSS (with `@media print` rules for the PDF
printed from it), no script, no remote resource, every recorded value escaped.
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from typing import Any

from provgraph.query.recipes.dossier_layout import Block, Fields, Heading, Note, Table, layout

_STYLE = """
body { font: 14px/1.45 system-ui, sans-serif; color: #1a1a1a; margin: 2rem auto;
       max-width: 60rem; padding: 0 1rem; }
h1 { font-size: 1.6rem; border-bottom: 2px solid #333; padding-bottom: .3rem; }
h2 { font-size: 1.25rem; margin-top: 2rem; border-bottom: 1px solid #bbb; }
h3 { font-size: 1.05rem; margin: 1.2rem 0 .4rem; word-break: break-all; }
table { border-collapse: collapse; width: 100%; margin: .4rem 0 .8rem; }
th, td { border: 1px solid #ccc; padding: .25rem .45rem; text-align: left;
         vertical-align: top; word-break: break-word; }
th { background: #f0f0f0; }
dl { display: grid; grid-template-columns: 14rem 1fr; gap: .15rem .8rem; margin: .4rem 0; }
dt { font-weight: 600; color: #444; } dd { margin: 0; word-break: break-word; }
.pass { color: #126b2a; font-weight: 600; } .fail { color: #a31515; font-weight: 600; }
@media print {
  @page { size: A4; margin: 16mm 14mm; }
  body { margin: 0; max-width: none; font-size: 10.5pt; }
  h2 { break-after: avoid; } h3 { break-after: avoid; }
  tr, dt, dd { break-inside: avoid; }
  th { background: #eee; -webkit-print-color-adjust: exact; print-color-adjust: exact; }
}
"""


def _cell(value: str) -> str:
    """An escaped cell; PASS and FAIL stand out."""
    escaped = html.escape(value)
    if value in ("PASS", "FAIL"):
        return f'<span class="{value.lower()}">{escaped}</span>'
    return escaped


def _html_block(block: Block) -> str:
    if isinstance(block, Heading):
        return f"<h{block.level}>{html.escape(block.text)}</h{block.level}>"
    if isinstance(block, Fields):
        rows = "".join(f"<dt>{html.escape(k)}</dt><dd>{_cell(v)}</dd>" for k, v in block.rows)
        return f"<dl>{rows}</dl>"
    if isinstance(block, Table):
        head = "".join(f"<th>{html.escape(h)}</th>" for h in block.headers)
        body = "".join(
            "<tr>" + "".join(f"<td>{_cell(v)}</td>" for v in row) + "</tr>" for row in block.rows
        )
        return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
    return f"<p>{html.escape(block.text)}</p>"


def render_html(document: Mapping[str, Any]) -> str:
    """The dossier as one complete HTML document."""
    body = "\n".join(_html_block(b) for b in layout(document))
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{html.escape(document['title'])}</title>\n"
        f"<style>{_STYLE}</style>\n</head>\n<body>\n{body}\n</body>\n</html>\n"
    )


def _md(value: str) -> str:
    """Text safe in a Markdown table cell or line: pipes escaped, one line."""
    return value.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def _md_block(block: Block) -> str:
    if isinstance(block, Heading):
        return f"{'#' * block.level} {_md(block.text)}"
    if isinstance(block, Fields):
        return "\n".join(f"- **{_md(k)}**: {_md(v)}" for k, v in block.rows)
    if isinstance(block, Table):
        lines = [block.headers, tuple("---" for _ in block.headers), *block.rows]
        return "\n".join("| " + " | ".join(_md(c) for c in line) + " |" for line in lines)
    assert isinstance(block, Note)
    return _md(block.text)


def render_markdown(document: Mapping[str, Any]) -> str:
    """The dossier as Markdown (GitHub tables)."""
    return "\n\n".join(_md_block(b) for b in layout(document)) + "\n"
