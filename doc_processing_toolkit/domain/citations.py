"""Citation markers in model text, and their removal (``Agent(remove_citations=True)``).

A model that searches the web or a file store writes citation markup into its answer.
`strip_citation_markers` removes the markup a reader of the plain answer does not
want, in these forms:

* ``【4:0†source】`` - the file-search / browsing markers of OpenAI models;
* ``([example.com](https://example.com/page))`` - the parenthesised source link the
  OpenAI web search tool appends (its ``url_citation`` annotation covers exactly it);
* ``<cite index="1-2">claim</cite>`` - cite tags around a claim: the tags go, the claim
  stays;
* ``[1]``, ``[2, 3]``, ``[1-4]``, ``[1][2]`` - numeric reference markers after a word or a
  punctuation mark (grounded answers).

Code (fenced blocks and inline backtick spans) is left untouched, so ``items[0]`` in a
code sample survives. The citations themselves are not lost: the provider-native history
(``AgentResult.messages``, ``raw_response``) keeps the annotations and citation blocks the
provider returned. Pure functions, no I/O.
"""

from __future__ import annotations

import re

__all__ = ["strip_citation_markers"]

_CODE = re.compile(r"(```.*?```|`[^`\n]*`)", re.DOTALL)
"""Fenced code blocks and inline code spans (left as they are)."""
_BRACKET_MARKER = re.compile(r"[ \t]*【[^】\n]*】")
_SOURCE_LINK = re.compile(r"[ \t]*\(\[[^\]\n]+\]\(https?://[^)\s]+\)\)")
_CITE_TAG = re.compile(r'<cite(?:\s+index="[^"]*")?\s*>(.*?)</cite>', re.DOTALL)
_NUMERIC = re.compile(r"(?<=[\w.,;:!?)\"'])[ \t]*(?:\[\d+(?:\s*[,\u2013-]\s*\d+)*\])+(?![(\w])")
"""Runs of ``[n]`` markers after a word or punctuation, not a Markdown link's text."""


def _strip(text: str) -> str:
    text = _CITE_TAG.sub(r"\1", text)
    text = _BRACKET_MARKER.sub("", text)
    text = _SOURCE_LINK.sub("", text)
    return _NUMERIC.sub("", text)


def strip_citation_markers(text: str) -> str:
    """``text`` without its citation markup (see the module docstring for the forms).

    Args:
        text: A model's answer.

    Returns:
        The answer with the markers removed; code spans and blocks unchanged.
    """
    if not text:
        return text
    pieces = _CODE.split(text)
    # split() with one group alternates prose (even indices) and code (odd indices).
    return "".join(piece if index % 2 else _strip(piece) for index, piece in enumerate(pieces))
