"""An animated GIF written one frame at a time, so that building a replay holds two frames, never all of them.

Pillow's own ``save(save_all=True, append_images=...)`` accepts an iterator but keeps every frame until the end
(it merges equal neighbours and diffs each frame against the one before), so its memory grows with the frame
count. This writer uses Pillow's documented frame-level GIF functions instead (:func:`PIL.GifImagePlugin.getheader`
and :func:`PIL.GifImagePlugin.getdata`, the ones frame-by-frame writers are built on) and keeps the same output
shape: the first frame whole, each further frame cropped to the box where it differs from the one before
(disposal 1: it is drawn over the previous frame), an unchanged frame merged into the one before by adding its
duration, and a loop forever.

Frames on one palette (each renderer's ``draw_board`` draws on its game's fixed palette) share the global colour
table; any other frame is written with a colour table of its own.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import IO

from PIL import GifImagePlugin, Image, ImageChops


@dataclass
class _Pending:
    """A frame read but not written yet: an unchanged frame after it still adds to its duration."""

    image: Image.Image
    box: tuple[int, int, int, int] | None
    duration: int


def _indexed(image: Image.Image, size: tuple[int, int]) -> Image.Image:
    """``image`` as a ``P`` image of ``size`` pixels (a board not drawn on a fixed palette gets one of its own, as
    exact as 256 colours allow)."""
    if image.size != size:
        image = image.convert("RGB").resize(size)
    if image.mode != "P":
        image = image.convert("RGB").quantize(colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    return image


def _palette(image: Image.Image) -> bytes:
    return bytes(image.getpalette() or b"")


def _changed(before: Image.Image, after: Image.Image) -> tuple[int, int, int, int] | None:
    """The box where ``after`` differs from ``before`` (both ``P``), or ``None`` when they look the same."""
    if _palette(before) == _palette(after):  # the same colour table: compare the colour indices
        return ImageChops.difference(before, after).getbbox()
    return ImageChops.difference(before.convert("RGB"), after.convert("RGB")).getbbox()


def write_gif(frames: Iterable[tuple[Image.Image, int]], fp: IO[bytes]) -> int:
    """Write ``frames`` — ``(image, duration in ms)`` pairs, read one at a time — to ``fp`` as an animated GIF that
    loops forever, the size of the first image (a later image of another size is resized to it).

    Returns:
        The number of frames written (equal neighbours count once); 0 when ``frames`` is empty, and then nothing
        is written.
    """
    size: tuple[int, int] | None = None
    shared = b""
    previous: Image.Image | None = None
    pending: _Pending | None = None
    written = 0

    def flush(frame: _Pending) -> None:
        nonlocal written
        image, offset = frame.image, (0, 0)
        params: dict[str, object] = {"duration": frame.duration, "disposal": 1}
        if frame.box is not None:
            image, offset = image.crop(frame.box), frame.box[:2]
        if _palette(frame.image) != shared:
            params["include_color_table"] = True
        fp.write(b"".join(GifImagePlugin.getdata(image, offset, **params)))
        written += 1

    for source, duration in frames:
        if size is None:
            size = source.size
        image = _indexed(source, size)
        if previous is None:
            shared = _palette(image)
            header, _ = GifImagePlugin.getheader(image.copy(), None, {"loop": 0, "duration": duration})
            fp.write(b"".join(header))
            pending = _Pending(image, None, duration)
        else:
            box = _changed(previous, image)
            assert pending is not None
            if box is None:  # looks the same as the frame before: show that one longer
                pending.duration += duration
                continue
            flush(pending)
            pending = _Pending(image, box, duration)
        previous = image
    if pending is None:
        return 0
    flush(pending)
    fp.write(b";")
    return written
