"""Settings: Wi-Fi, Bluetooth, airplane mode, display brightness, dark theme and screen timeout, about phone.

Values live in the phone's settings store (the same keys ``settings get`` reads on a real phone:
global wifi_on / bluetooth_on / airplane_mode_on, system screen_brightness / screen_off_timeout,
secure ui_night_mode).
"""

from __future__ import annotations

from typing import Any

from relay_desktop.sim.app import Activity, App
from relay_desktop.sim.ui import ON_SURFACE_VARIANT, PRIMARY
from relay_desktop.sim.views import Style, View

HOME_NETWORK = "Relay-Home"
# The choices of AOSP's screen timeout page: (milliseconds, label).
TIMEOUTS: tuple[tuple[int, str], ...] = (
    (15_000, "15 seconds"), (30_000, "30 seconds"), (60_000, "1 minute"), (120_000, "2 minutes"),
    (300_000, "5 minutes"), (600_000, "10 minutes"), (1_800_000, "30 minutes"),
)


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
    }
    _INTENTS = {
        "android.settings.SETTINGS": ".Settings",
        "android.settings.WIFI_SETTINGS": ".NetworkDashboardActivity",
        "android.settings.WIRELESS_SETTINGS": ".NetworkDashboardActivity",
        "android.settings.AIRPLANE_MODE_SETTINGS": ".NetworkDashboardActivity",
        "android.settings.BLUETOOTH_SETTINGS": ".ConnectedDevicesActivity",
        "android.settings.DISPLAY_SETTINGS": ".DisplaySettingsActivity",
        "android.settings.DEVICE_INFO_SETTINGS": ".DeviceInfoActivity",
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

    # ------------------------------------------------------------ screens

    def _page(self, title: str, rows: list[View], *, up: bool = True, key: str) -> View:
        ui = self.ui
        bar = ui.app_bar(title, up=self.finish if up else None,
                         actions=[ui.icon_button("search", "Search settings", lambda: None, id="search_action")])
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
            ui.list_item("Display", "Dark theme, brightness, screen timeout", id="display",
                         leading=ui.icon("brightness"), on_click=lambda: self.open(".DisplaySettingsActivity")),
            ui.list_item("Battery", "100%", id="battery", leading=ui.icon("battery"), on_click=lambda: None),
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
        ]
        return self._page("Connected devices", rows, key="devices_list")

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
