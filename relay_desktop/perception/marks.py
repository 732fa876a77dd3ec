"""Set-of-marks: element IDs drawn on the screenshot, for vision models that point at what they see.

The dump and the screenshot do not always share a size (the screenshot may be downscaled, or include a
navigation bar the dump's root stops above), so boxes are scaled by the width ratio, and by the height
ratio only when it agrees.
"""

from __future__ import annotations

from PIL import Image, ImageDraw, ImageFont

from relay_desktop.perception.element_map import Element, ElementMap
from relay_desktop.perception.tree import WindowKind

__all__ = ["ROLE_COLOURS", "draw_marks"]

# Colour by what the element does; the same scheme as the window's overlay.
ROLE_COLOURS = {
    "field": (41, 121, 255), "scroll": (255, 145, 0), "pager": (255, 145, 0), "text": (158, 158, 158),
    "image": (158, 158, 158),
}
_CONTROL_COLOUR = (0, 200, 83)


def _colour(element: Element) -> tuple[int, int, int]:
    return ROLE_COLOURS.get(element.role, _CONTROL_COLOUR if element.interactive else (158, 158, 158))


def draw_marks(screenshot: Image.Image, element_map: ElementMap, *, include_text: bool = False,
               include_keyboard: bool = False) -> Image.Image:
    """A copy of ``screenshot`` with a box and an ID tag on each interactive element (and plain text
    elements too with ``include_text``). Keyboard keys are left unmarked unless asked for: IDs on 40 keys
    hide the keyboard and the agent types through the type action anyway."""
    image = screenshot.convert("RGB")
    screen = element_map.screen
    sx = image.width / screen.width if screen.width else 1.0
    sy = image.height / screen.height if screen.height else sx
    if abs(sy - sx) > 0.02 * sx:
        sy = sx
    draw = ImageDraw.Draw(image, "RGBA")
    size = max(12, round(image.width / 40))
    font = ImageFont.load_default(size=size)
    for element in element_map.elements:
        if not element.interactive and not include_text:
            continue
        if element.window is WindowKind.KEYBOARD and not include_keyboard:
            continue
        colour = _colour(element)
        b = element.visible
        box = (b.left * sx, b.top * sy, b.right * sx - 1, b.bottom * sy - 1)
        draw.rectangle(box, outline=(*colour, 255), width=max(2, size // 8))
        tag_box = draw.textbbox((0, 0), element.id, font=font)
        w, h = tag_box[2] - tag_box[0] + 6, tag_box[3] - tag_box[1] + 6
        x = min(max(0.0, box[0]), image.width - w)
        y = min(max(0.0, box[1]), image.height - h)
        draw.rectangle((x, y, x + w, y + h), fill=(*colour, 230))
        draw.text((x + 3 - tag_box[0], y + 3 - tag_box[1]), element.id, font=font, fill=(0, 0, 0, 255))
    return image
