"""Settings: Wi-Fi, Bluetooth, airplane mode, sound (volumes, Do Not Disturb), display brightness, dark theme and
screen timeout, about phone, and a search over all of them.

Values live in the phone's settings store (the same keys ``settings get`` reads on a real phone:
global wifi_on / bluetooth_on / airplane_mode_on / zen_mode, system screen_brightness / screen_off_timeout /
volume_*_speaker, secure ui_night_mode). This phone has no NFC, as many phones do not: no page or search
result offers it.
"""

from __future__ import annotations

from typing import Any

from relay_desktop.sim.app import Activity, App
from relay_desktop.sim.apps.contacts import keyboard_inset
from relay_desktop.sim.apps.settings_search import SEARCH, search_page
from relay_desktop.sim.ui import ON_SURFACE_VARIANT, PRIMARY
from relay_desktop.sim.views import Style, View

HOME_NETWORK = "Relay-Home"
# The choices of AOSP's screen timeout page: (milliseconds, label).
TIMEOUTS: tuple[tuple[int, str], ...] = (
    (15_000, "15 seconds"), (30_000, "30 seconds"), (60_000, "1 minute"), (120_000, "2 minutes"),
    (300_000, "5 minutes"), (600_000, "10 minutes"), (1_800_000, "30 minutes"),
)


# (setting, title, maximum index, default index, icon): the sliders of Sound & vibration, as AudioService
# stores them per stream (volume_<stream>_speaker) with a Pixel's ranges.
VOLUMES: tuple[tuple[str, str, int, int, str], ...] = (
    ("volume_music_speaker", "Media volume", 25, 15, "music"),
    ("volume_voice_speaker", "Call volume", 7, 4, "phone"),
    ("volume_ring_speaker", "Ring & notification volume", 7, 5, "notifications"),
    ("volume_alarm_speaker", "Alarm volume", 7, 6, "alarm"),
)
ZEN_OFF, ZEN_IMPORTANT = "0", "1"      # global zen_mode: off, "important interruptions" (alarms still ring)


def volume(phone: Any, key: str) -> int:
    """A stream's volume index, or its default when the phone's store has none yet."""
    default = next(d for k, _t, _m, d, _i in VOLUMES if k == key)
    return int(phone.setting("system", key, str(default)))


def timeout_label(millis: str) -> str:
    return next((label for ms, label in TIMEOUTS if str(ms) == millis), f"{int(millis or 0) // 1000} seconds")


class Settings(App):
    package = "com.android.settings"
    label = "Settings"
    icon = "settings"
    color = (70, 90, 120)
    main_activity = ".Settings"
    screens = {
        ".Settings": "main",
        ".NetworkDashboardActivity": "network",
        ".ConnectedDevicesActivity": "connected",
        ".DisplaySettingsActivity": "display",
        ".DeviceInfoActivity": "about",
        ".DeviceNameActivity": "device_name",
        ".ScreenTimeoutActivity": "screen_timeout",
        ".SoundSettingsActivity": "sound",
        ".ZenModeSettingsActivity": "do_not_disturb",
        ".ConnectionPreferencesActivity": "connection_preferences",
        SEARCH: "search",
    }
    _INTENTS = {
        "android.settings.SETTINGS": ".Settings",
        "android.settings.WIFI_SETTINGS": ".NetworkDashboardActivity",
        "android.settings.WIRELESS_SETTINGS": ".NetworkDashboardActivity",
        "android.settings.AIRPLANE_MODE_SETTINGS": ".NetworkDashboardActivity",
        "android.settings.BLUETOOTH_SETTINGS": ".ConnectedDevicesActivity",
        "android.settings.DISPLAY_SETTINGS": ".DisplaySettingsActivity",
        "android.settings.DEVICE_INFO_SETTINGS": ".DeviceInfoActivity",
        "android.settings.SOUND_SETTINGS": ".SoundSettingsActivity",
        "android.settings.ZEN_MODE_SETTINGS": ".ZenModeSettingsActivity",
        "android.settings.APP_SEARCH_SETTINGS": SEARCH,
    }

    def resolve_intent(self, action: str | None, data: str | None) -> tuple[str, dict[str, Any]] | None:
        name = self._INTENTS.get(action or "")
        return (name, {}) if name else None

    # ------------------------------------------------------------ state

    def _flag(self, namespace: str, key: str) -> bool:
        return self.phone.setting(namespace, key) == "1"

    def _set_flag(self, namespace: str, key: str, on: bool) -> None:
        self.phone.put_setting(namespace, key, "1" if on else "0")

    def toggle_wifi(self) -> None:
        self._set_flag("global", "wifi_on", not self._flag("global", "wifi_on"))

    def toggle_bluetooth(self) -> None:
        self._set_flag("global", "bluetooth_on", not self._flag("global", "bluetooth_on"))

    def toggle_airplane(self) -> None:
        on = not self._flag("global", "airplane_mode_on")
        self._set_flag("global", "airplane_mode_on", on)
        if on:  # as on a real phone, airplane mode switches the radios off
            self._set_flag("global", "wifi_on", False)
            self._set_flag("global", "bluetooth_on", False)

    def toggle_dark(self) -> None:
        dark = self.phone.setting("secure", "ui_night_mode") == "2"
        self.phone.put_setting("secure", "ui_night_mode", "1" if dark else "2")

    def set_brightness(self, value: int) -> None:
        self.phone.put_setting("system", "screen_brightness", str(max(1, min(255, value))))

    def set_volume(self, key: str, value: int) -> None:
        maximum = next(m for k, _t, m, _d, _i in VOLUMES if k == key)
        self.phone.put_setting("system", key, str(max(0, min(maximum, value))))

    def set_zen(self, on: bool) -> None:
        self.phone.put_setting("global", "zen_mode", ZEN_IMPORTANT if on else ZEN_OFF)

    # ------------------------------------------------------------ screens

    def _page(self, title: str, rows: list[View], *, up: bool = True, key: str) -> View:
        ui = self.ui
        bar = ui.app_bar(title, up=self.finish if up else None,
                         actions=[ui.icon_button("search", "Search settings",
                                                 lambda: self.open(SEARCH, focus="search_settings"),
                                                 id="search_action")])
        return ui.screen(bar, ui.scroll(rows, key=key, id="recycler_view"), id="settings_page")

    def main(self, activity: Activity) -> View:
        ui = self.ui
        wifi = f"Wi-Fi: {HOME_NETWORK}" if self._flag("global", "wifi_on") else "Wi-Fi off"
        bluetooth = "Bluetooth on" if self._flag("global", "bluetooth_on") else "Bluetooth off"
        rows = [
            ui.list_item("Network & internet", f"{wifi}, mobile data", id="network",
                         leading=ui.icon("wifi"), on_click=lambda: self.open(".NetworkDashboardActivity")),
            ui.list_item("Connected devices", bluetooth, id="connected_devices", leading=ui.icon("bluetooth"),
                         on_click=lambda: self.open(".ConnectedDevicesActivity")),
            ui.list_item("Sound & vibration", "Volume, haptics, Do Not Disturb", id="sound",
                         leading=ui.icon("notifications"), on_click=lambda: self.open(".SoundSettingsActivity")),
            ui.list_item("Display", "Dark theme, brightness, screen timeout", id="display",
                         leading=ui.icon("brightness"), on_click=lambda: self.open(".DisplaySettingsActivity")),
            ui.list_item("Battery", f"{self.phone.battery_level}%", id="battery", leading=ui.icon("battery"),
                         on_click=lambda: None),
            ui.list_item("About phone", self.phone.config.model, id="about_phone", leading=ui.icon("info"),
                         on_click=lambda: self.open(".DeviceInfoActivity")),
        ]
        return self._page("Settings", rows, up=False, key="settings_homepage")

    def network(self, activity: Activity) -> View:
        ui = self.ui
        wifi_on = self._flag("global", "wifi_on")
        rows = [
            ui.switch_row("Wi-Fi", wifi_on, self.toggle_wifi, id="wifi", icon="wifi",
                          subtitle=f"Connected to {HOME_NETWORK}" if wifi_on else "Off"),
            ui.list_item("Mobile network", "Relay Mobile", id="mobile_network", leading=ui.icon("signal"),
                         on_click=lambda: None),
            ui.switch_row("Airplane mode", self._flag("global", "airplane_mode_on"), self.toggle_airplane,
                          id="airplane_mode", icon="airplane"),
        ]
        if wifi_on:
            rows.append(ui.text("Available networks", size=14, weight=500, padding=ui.pad(16, 16, 16, 4)))
            for name in (HOME_NETWORK, "CoffeeShop-Guest", "NETGEAR-5G"):
                rows.append(ui.list_item(name, "Connected" if name == HOME_NETWORK else "Secured",
                                         id="access_point", key=f"ap:{name}",
                                         leading=ui.icon("wifi"), on_click=lambda: None))
        return self._page("Network & internet", rows, key="network_list")

    def connected(self, activity: Activity) -> View:
        ui = self.ui
        on = self._flag("global", "bluetooth_on")
        rows = [
            ui.switch_row("Bluetooth", on, self.toggle_bluetooth, id="bluetooth", icon="bluetooth",
                          subtitle="Visible to nearby devices" if on else "Off"),
            ui.list_item("Pair new device", id="pair_new_device", leading=ui.icon("add"), on_click=lambda: None),
            ui.list_item("Connection preferences", "Bluetooth, Android Auto, Quick Share",
                         id="connection_preferences", leading=ui.icon("settings"),
                         on_click=lambda: self.open(".ConnectionPreferencesActivity")),
        ]
        return self._page("Connected devices", rows, key="devices_list")

    def connection_preferences(self, activity: Activity) -> View:
        ui = self.ui
        rows = [
            ui.list_item("Bluetooth", "On" if self._flag("global", "bluetooth_on") else "Off", id="bluetooth_settings",
                         leading=ui.icon("bluetooth"), on_click=lambda: self.open(".ConnectedDevicesActivity")),
            ui.list_item("Quick Share", "Share files with devices nearby", id="quick_share", leading=ui.icon("share")),
            ui.list_item("Android Auto", "Use apps on your car screen", id="android_auto", leading=ui.icon("phone")),
            ui.list_item("Printing", "1 print service on", id="printing", leading=ui.icon("note")),
            ui.list_item("Files received via Bluetooth", id="bt_received_files", leading=ui.icon("image")),
        ]
        return self._page("Connection preferences", rows, key="connection_list")

    def sound(self, activity: Activity) -> View:
        """AOSP's Sound & vibration: one slider per stream, then Do Not Disturb and the ringtone."""
        ui = self.ui
        rows: list[View] = []
        for key, title, maximum, _default, icon in VOLUMES:
            head = ui.row([ui.icon(icon), ui.text(title, size=16, id="title")], gap=16)
            head.padding = ui.pad(16, 16, 16, 0)
            bar = ui.seekbar(volume(self.phone, key), maximum, lambda v, k=key: self.set_volume(k, v), id="seekbar",
                             desc=title)
            bar.key = key
            rows += [head, bar]
        zen = self.phone.setting("global", "zen_mode", ZEN_OFF) != ZEN_OFF
        rows += [
            ui.list_item("Do Not Disturb", "On" if zen else "Off", id="zen_mode", leading=ui.icon("notifications"),
                         on_click=lambda: self.open(".ZenModeSettingsActivity")),
            ui.list_item("Phone ringtone", "Pixel Sounds", id="ringtone", leading=ui.icon("music")),
        ]
        return self._page("Sound & vibration", rows, key="sound_list")

    def do_not_disturb(self, activity: Activity) -> View:
        """Android 14's Do Not Disturb page: what may still interrupt, and one Turn on / off now button."""
        ui = self.ui
        on = self.phone.setting("global", "zen_mode", ZEN_OFF) != ZEN_OFF
        button = ui.button("Turn off now" if on else "Turn on now", lambda: self.set_zen(not on),
                           id="zen_mode_settings_turn_off_button" if on else "zen_mode_settings_turn_on_button")
        button.padding = ui.pad(24, 0)
        rows = [
            ui.text("Only get notified by important people and apps", size=14, color=ON_SURFACE_VARIANT,
                    padding=ui.pad(16, 8, 16, 8)),
            ui.list_item("People", "Starred contacts can interrupt", id="zen_mode_people", leading=ui.icon("people")),
            ui.list_item("Apps", "No apps can interrupt", id="zen_mode_apps", leading=ui.icon("apps")),
            ui.list_item("Alarms & other interruptions", "Alarms and media can interrupt", id="zen_mode_alarms",
                         leading=ui.icon("alarm")),
            View(cls="android.widget.LinearLayout", orientation="h", padding=ui.pad(16, 16), children=[button]),
        ]
        return self._page("Do Not Disturb", rows, key="zen_list")

    def search(self, activity: Activity) -> View:
        return search_page(self, activity, bottom=keyboard_inset(self.phone))

    def display(self, activity: Activity) -> View:
        ui = self.ui
        brightness = int(self.phone.setting("system", "screen_brightness", "128"))
        rows = [
            ui.text("Brightness level", size=16, id="brightness_title", padding=ui.pad(16, 16, 16, 0)),
            ui.seekbar(brightness, 255, self.set_brightness, id="brightness_seekbar", desc="Brightness level"),
            ui.switch_row("Dark theme", self.phone.dark_theme, self.toggle_dark, id="dark_theme", icon="dark_mode"),
            ui.list_item("Screen timeout", f"After {timeout_label(self.phone.setting('system', 'screen_off_timeout'))}"
                         " of inactivity", id="screen_timeout", leading=ui.icon("clock"),
                         on_click=lambda: self.open(".ScreenTimeoutActivity")),
        ]
        return self._page("Display", rows, key="display_list")

    def screen_timeout(self, activity: Activity) -> View:
        """A page of radio rows, as in Android 12+: a tap selects at once, there is no OK button."""
        ui = self.ui
        current = self.phone.setting("system", "screen_off_timeout")
        rows = [ui.text("Screen turns off after this much inactivity", size=14, color=ON_SURFACE_VARIANT,
                        padding=ui.pad(16, 8, 16, 8))]
        for millis, label in TIMEOUTS:
            checked = current == str(millis)
            radio = View(cls="android.widget.RadioButton", id="radio", checkable=True, checked=checked,
                         width=ui.dp(24), height=ui.dp(24), align="center",
                         style=Style(kind="radio", accent=PRIMARY))
            row = ui.list_item(label, leading=radio, key=f"timeout:{millis}", id="selector_item",
                               on_click=lambda ms=millis: self.phone.put_setting("system", "screen_off_timeout",
                                                                                 str(ms)))
            row.checkable, row.checked = True, checked
            rows.append(row)
        return self._page("Screen timeout", rows, key="timeout_list")

    def about(self, activity: Activity) -> View:
        ui = self.ui
        props = self.phone.props
        rows = [
            ui.list_item("Device name", self.phone.setting("global", "device_name"), id="device_name",
                         on_click=lambda: self.open(".DeviceNameActivity")),
            ui.list_item("Model", props["ro.product.model"], id="device_model"),
            ui.list_item("Android version", props["ro.build.version.release"], id="firmware_version"),
            ui.list_item("Build number", props["ro.build.id"], id="build_number"),
            ui.list_item("IP address", "192.168.1.42" if self._flag("global", "wifi_on") else "Unavailable",
                         id="wifi_ip_address"),
        ]
        return self._page("About phone", rows, key="about_list")

    def device_name(self, activity: Activity) -> View:
        """Rename the phone. The Save button sits at the bottom and the screen does not resize for the
        keyboard (adjustPan-style), so while typing, the keyboard covers Save: BACK hides it first."""
        ui = self.ui
        draft = activity.state.setdefault("name", self.phone.setting("global", "device_name"))
        field = ui.edit_text("device_name", draft, hint="Device name", on_change=self.field_setter(activity, "name"),
                             id="edit_device_name")
        body = ui.column([
            ui.text("Other devices see this name over Bluetooth, Wi-Fi Direct and hotspot.", size=14,
                    color=ON_SURFACE_VARIANT, padding=ui.pad(16, 16, 16, 8)),
            View(cls="android.widget.FrameLayout", children=[field], padding=ui.pad(16, 8)),
        ], weight=1)
        save = ui.button("Save", lambda: self._save_name(activity), id="save_device_name")
        bottom = View(cls="android.widget.LinearLayout", children=[save], padding=ui.pad(16, 12, 16, 24))
        bar = ui.app_bar("Device name", up=self.finish)
        return ui.screen(bar, body, bottom=bottom, id="device_name_page")

    def _save_name(self, activity: Activity) -> None:
        name = " ".join(str(activity.state.get("name", "")).split())
        if name:
            self.phone.put_setting("global", "device_name", name)
        self.finish()
