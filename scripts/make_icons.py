"""Draw the web app's PNG icons and /favicon.ico from their SVG sources, once; the results are
committed under static/img/icons/ (the site has no imaging library: Chromium draws them).

    .venv/bin/python scripts/make_icons.py

Sources: ``static/img/icons/icon.svg`` (rounded, for browsers and the favicon) and
``maskable.svg`` (full bleed, its spade inside the safe circle the platforms crop to). The ICO
holds PNG images (Windows Vista and every browser since read those), written with ``struct``.
"""

from __future__ import annotations

import struct
from pathlib import Path

from playwright.sync_api import FloatRect, Page, sync_playwright

ICONS = Path(__file__).resolve().parents[1] / "static" / "img" / "icons"
CHROMIUM = "/usr/bin/chromium"

#: Output file, source SVG, size in pixels.
PNGS = (
    ("icon-192.png", "icon.svg", 192),
    ("icon-512.png", "icon.svg", 512),
    ("maskable-192.png", "maskable.svg", 192),
    ("maskable-512.png", "maskable.svg", 512),
    # iOS rounds the corners itself and shows transparency as black: the full-bleed drawing.
    ("apple-touch-icon.png", "maskable.svg", 180),
)
ICO_SIZES = (16, 32, 48)


def render(page: Page, svg: str, size: int) -> bytes:
    """The SVG drawn at ``size`` pixels square, as PNG bytes with a transparent background."""
    page.set_viewport_size({"width": size, "height": size})
    page.set_content(
        '<html><body style="margin:0;background:transparent">'
        f'<div style="width:{size}px;height:{size}px">{svg}</div></body></html>'
    )
    page.evaluate(
        """(size) => { const svg = document.querySelector("svg");
                       svg.setAttribute("width", size); svg.setAttribute("height", size); }""",
        size,
    )
    clip: FloatRect = {"x": 0, "y": 0, "width": size, "height": size}
    return page.screenshot(clip=clip, omit_background=True, type="png")


def ico(images: list[tuple[int, bytes]]) -> bytes:
    """An ICO file of PNG images: ICONDIR, one ICONDIRENTRY per image, then the images."""
    header = struct.pack("<HHH", 0, 1, len(images))
    offset = len(header) + 16 * len(images)
    entries = b""
    for size, png in images:
        side = 0 if size >= 256 else size  # 0 means 256
        entries += struct.pack("<BBBBHHII", side, side, 0, 0, 1, 32, len(png), offset)
        offset += len(png)
    return header + entries + b"".join(png for _, png in images)


def main() -> None:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page(device_scale_factor=1)
        for name, source, size in PNGS:
            (ICONS / name).write_bytes(render(page, (ICONS / source).read_text(), size))
            print(f"{name}: {size}x{size}")
        favicon = (ICONS / "icon.svg").read_text()
        images = [(size, render(page, favicon, size)) for size in ICO_SIZES]
        (ICONS / "favicon.ico").write_bytes(ico(images))
        print(f"favicon.ico: {', '.join(f'{s}x{s}' for s in ICO_SIZES)}")
        browser.close()


if __name__ == "__main__":
    main()
