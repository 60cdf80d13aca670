"""Long documents as readable passages: split at Markdown headings, then by size, each titled "Document > Section".

The verifier reads passages whole up to a budget and selection keeps 21 documents, so a 40-page PDF must become
many passages, each about one thing and named for it. LangChain's MarkdownHeaderTextSplitter cuts at headings
(the converters keep them), RecursiveCharacterTextSplitter cuts an over-long section at paragraph, then line,
then sentence breaks."""

from __future__ import annotations

import re
from dataclasses import dataclass

from langchain_text_splitters import (
    MarkdownHeaderTextSplitter,
    RecursiveCharacterTextSplitter,
)

from claimhop.retrieval.titles import SECTION_JOIN

# A collection document's passage, at most: a longer section is cut at paragraph, line or sentence breaks. About the
# length of the HoVer intro paragraphs the retrieval and verifier were tuned on; set by hand (6dcfc6d), not tuned.
# Not the size of the entity graph's sections (claimhop.retrieval.title_mentions.MENTION_SECTION_CHARS).
PASSAGE_CHARS = 1200
HEADINGS = [("#", "h1"), ("##", "h2"), ("###", "h3"), ("####", "h4")]



@dataclass(frozen=True)
class Section:
    title: str
    text: str


def split_document(title: str, markdown: str, max_chars: int = PASSAGE_CHARS) -> list[Section]:
    """One passage titled `title` when the document is short; else its sections, "Title > Heading", with a
    part number when a section itself is cut ("Title > Heading (2)"). The document's own first heading is its
    title, not a section; text before the first sub-heading is the document's lead, titled `title`."""
    text = markdown.strip()
    if len(text) <= max_chars:
        text = _flat(_HEADING.sub(_heading_text, text))
        first, _, rest = text.partition("\n")
        text = rest if first == title and rest else text  # the title heading is the passage's title already
        return [Section(title, text)] if text else []
    by_heading = MarkdownHeaderTextSplitter(HEADINGS, strip_headers=True).split_text(text)
    by_size = RecursiveCharacterTextSplitter(chunk_size=max_chars, chunk_overlap=0,
                                             separators=["\n\n", "\n", ". ", " ", ""], keep_separator="end")
    sections: list[Section] = []
    used: dict[str, int] = {}
    for part in by_heading:
        names = [str(part.metadata[key]).strip() for _, key in HEADINGS if part.metadata.get(key)]
        if names and names[0] == title:  # the first heading is the document's title
            names = names[1:]
        name = SECTION_JOIN.join([title, names[-1]]) if names else title
        for chunk in by_size.split_text(part.page_content):
            chunk = _flat(chunk)
            if not chunk:
                continue
            used[name] = used.get(name, 0) + 1
            sections.append(Section(name if used[name] == 1 else f"{name} ({used[name]})", chunk))
    return sections


_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$", re.MULTILINE)


def _heading_text(match: re.Match) -> str:
    """A heading kept as its words ("## Results" -> "Results"): a short passage reads as prose."""
    return " ".join(re.sub(r"[*_`]+", "", match.group(1)).split())


def _flat(text: str) -> str:
    """Paragraph breaks kept as single newlines, runs of spaces collapsed: a passage reads as prose."""
    lines = [" ".join(line.split()) for line in text.splitlines()]
    return "\n".join(line for line in lines if line)
