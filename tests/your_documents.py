"""A folder of real mixed files, as a user would point claimhop at: Markdown, HTML, a PDF and a DOCX written here
by real writers (fpdf2, python-docx), and a CSV table. The claim "Harbor Lights was recorded by a band formed in
Norway" needs two of them: the Markdown file says the album is Gray Tern's, the DOCX file where Gray Tern formed."""

from __future__ import annotations

import csv
from pathlib import Path

CLAIM = "Harbor Lights was recorded by a band that was formed in Norway."
ALBUM_FACT = "Harbor Lights is the second studio album by the folk band Gray Tern, released in 2019."
BAND_FACT = "Gray Tern is a folk band that was formed in Tromsø, Norway, in 2011."
EDITED_FACT = "Gray Tern is a folk band that was formed in Reykjavík, Iceland, in 2011."


def write_markdown(folder: Path) -> None:
    (folder / "albums").mkdir(parents=True, exist_ok=True)
    (folder / "albums" / "harbor-lights.md").write_text(
        f"# Harbor Lights\n\n{ALBUM_FACT} It was recorded over three weeks in a converted boathouse.\n",
        encoding="utf-8")


def write_html(folder: Path) -> None:
    (folder / "web").mkdir(parents=True, exist_ok=True)
    (folder / "web" / "copper-finch.html").write_text(
        "<html><head><title>Copper Finch</title></head><body><h1>Copper Finch</h1>"
        "<p>Copper Finch is a rock band formed in Cork, Ireland, in 2008.</p>"
        "<p>Its debut album Salt Roads was released in 2012.</p></body></html>", encoding="utf-8")


def write_docx(folder: Path, fact: str = BAND_FACT) -> Path:
    from docx import Document

    path = folder / "bands" / "gray-tern.docx"
    path.parent.mkdir(parents=True, exist_ok=True)
    document = Document()
    document.add_heading("Gray Tern", level=1)
    document.add_paragraph(f"{fact} The band plays acoustic instruments and sings in English.")
    document.save(str(path))
    return path


def write_pdf(folder: Path) -> None:
    """A report long enough to be split into sections by its headings."""
    from fpdf import FPDF

    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", size=11)
    pdf.multi_cell(0, 6, "Northern Folk Festivals\n\n"
                         "Introduction\n\nThe Midnight Sun festival is held every June in Bodø. "
                         "It has booked acoustic acts since 1998.\n\n"
                         "Attendance\n\nAbout twelve thousand people attended the 2022 festival, a record.")
    pdf.output(str(folder / "festivals.pdf"))


def write_csv(folder: Path) -> None:
    with open(folder / "labels.csv", "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["title", "text"])
        writer.writerow(["Fjordline Records", "Fjordline Records is an independent record label based in Bergen."])
        writer.writerow(["Stillwater Music", "Stillwater Music is a distributor of jazz recordings in Oslo."])


def make_folder(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    write_markdown(folder)
    write_html(folder)
    write_docx(folder)
    write_pdf(folder)
    write_csv(folder)
    return folder
