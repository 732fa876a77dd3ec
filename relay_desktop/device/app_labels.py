"""Human names for package names.

adb has no command that lists app labels (they live in each APK's resources), so the device layer
names apps from a table of well-known packages and falls back to a readable guess from the package.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from relay_desktop.device.models import AppInfo

KNOWN_LABELS = {
    "com.android.chrome": "Chrome",
    "com.android.settings": "Settings",
    "com.android.vending": "Play Store",
    "com.android.camera2": "Camera",
    "com.android.launcher3": "Launcher",
    "com.android.documentsui": "Files",
    "com.google.android.apps.messaging": "Messages",
    "com.google.android.contacts": "Contacts",
    "com.google.android.dialer": "Phone",
    "com.google.android.deskclock": "Clock",
    "com.google.android.keep": "Keep Notes",
    "com.google.android.calendar": "Calendar",
    "com.google.android.gm": "Gmail",
    "com.google.android.apps.maps": "Maps",
    "com.google.android.youtube": "YouTube",
    "com.google.android.apps.photos": "Photos",
    "com.google.android.GoogleCamera": "Camera",
    "com.google.android.calculator": "Calculator",
    "com.google.android.apps.docs": "Drive",
    "com.google.android.googlequicksearchbox": "Google",
    "com.google.android.apps.nexuslauncher": "Pixel Launcher",
    "com.whatsapp": "WhatsApp",
    "org.telegram.messenger": "Telegram",
    "com.instagram.android": "Instagram",
    "com.facebook.katana": "Facebook",
    "com.twitter.android": "X",
    "com.spotify.music": "Spotify",
    "com.ubercab": "Uber",
    "com.amazon.mShop.android.shopping": "Amazon Shopping",
    "org.mozilla.firefox": "Firefox",
    "com.relay.shop": "Shop",
}

_GENERIC = {"com", "org", "net", "android", "app", "apps", "mobile", "client", "google", "main", "free"}


def label_for(package: str) -> str:
    if package in KNOWN_LABELS:
        return KNOWN_LABELS[package]
    parts = [p for p in package.split(".") if p.lower() not in _GENERIC]
    if not parts:
        return package
    return parts[-1].replace("_", " ").capitalize()


def matching_apps(apps: Sequence[AppInfo], query: str) -> list[AppInfo]:
    """The apps a person's name for an app means ("chrome", "Keep Notes", a package), by the first of these
    that matches any: the package itself, the label, a label starting with it, a label or package holding it."""
    query = query.strip()
    lowered = query.lower()
    words = re.findall(r"[a-z0-9]{3,}", lowered)
    for test in (lambda a: a.package == query,
                 lambda a: a.label.lower() == lowered,
                 lambda a: a.label.lower().startswith(lowered),
                 lambda a: lowered in a.label.lower() or lowered in a.package.lower(),
                 # A label we could only guess from the package ("Bank" for com.northwind.bank) still matches
                 # the name the launcher shows ("Northwind Bank") when every word of it is in the package.
                 lambda a: bool(words) and all(w in f"{a.package.lower()} {a.label.lower()}" for w in words)):
        matches = [a for a in apps if test(a)]
        if matches:
            return matches
    return []
