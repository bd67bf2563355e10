#!/usr/bin/env python3
"""XFCE's default panel layout, trimmed for a desktop that agents drive and people watch.

Keeps the top panel only: the bottom dock floats over maximized windows and would catch clicks
meant for them. Of its plugins, drops the ones that run as a process of their own for nothing
here: the status tray (no program of the image has a tray icon) and the action buttons (log out
would end the container's session under its programs). Plugins whose package the image lacks
(sound, power, notifications) go too, so the panel does not look for them at every start.

Usage: panel-layout.py DEFAULT_XML OUTPUT_XML
"""

import sys
import xml.etree.ElementTree as ET

KEPT_PANEL = "1"
DROPPED_PLUGINS = {"systray", "actions", "pulseaudio", "power-manager-plugin", "notification-plugin"}


def main(source: str, target: str) -> None:
    tree = ET.parse(source)
    root = tree.getroot()
    panels = root.find("property[@name='panels']")
    plugins = root.find("property[@name='plugins']")
    for value in panels.findall("value"):
        if value.get("value") != KEPT_PANEL:
            panels.remove(value)
    for panel in panels.findall("property"):
        if panel.get("name", "").startswith("panel-") and panel.get("name") != f"panel-{KEPT_PANEL}":
            panels.remove(panel)
    for plugin in plugins.findall("property"):
        if plugin.get("value") in DROPPED_PLUGINS:
            plugins.remove(plugin)
    defined = {plugin.get("name").removeprefix("plugin-") for plugin in plugins.findall("property")}
    ids = panels.find(f"property[@name='panel-{KEPT_PANEL}']/property[@name='plugin-ids']")
    kept_ids = set()
    for value in ids.findall("value"):
        if value.get("value") in defined:
            kept_ids.add(value.get("value"))
        else:
            ids.remove(value)
    # Plugins of the removed panels are unused once their panel is gone.
    for plugin in plugins.findall("property"):
        if plugin.get("name").removeprefix("plugin-") not in kept_ids:
            plugins.remove(plugin)
    tree.write(target, encoding="UTF-8", xml_declaration=True)


if __name__ == "__main__":
    main(*sys.argv[1:3])
