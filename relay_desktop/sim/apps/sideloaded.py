"""An app installed with ``pm install`` from a pushed APK: listed by ``pm list packages``, launchable, and
showing one plain screen with its name (the virtual phone cannot run an APK's code)."""

from __future__ import annotations

from relay_desktop.sim.apk import ApkInfo
from relay_desktop.sim.app import Activity, App
from relay_desktop.sim.views import View

__all__ = ["sideloaded_app_class"]


class SideloadedApp(App):
    system = False
    icon = "apps"
    screens = {".MainActivity": "main_screen"}

    def main_screen(self, activity: Activity) -> View:
        ui = self.ui
        body = ui.column([ui.text(self.label, size=22, weight=500),
                          ui.text(f"{self.package} {self.version_name}", size=14)], gap=8, padding=ui.pad(24))
        return ui.screen(ui.app_bar(self.label), body)


def sideloaded_app_class(info: ApkInfo) -> type[App]:
    """A class of its own per package (an app's identity lives in class attributes)."""
    label = info.package.rsplit(".", 1)[-1].replace("_", " ").title()
    return type(f"Sideloaded_{info.package.replace('.', '_')}", (SideloadedApp,),
                {"package": info.package, "label": label, "version_code": info.version_code,
                 "version_name": info.version_name})
