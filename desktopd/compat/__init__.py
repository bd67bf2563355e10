"""The original desktopd's input endpoints (tablet_event, keyboard_event), served unchanged on top
of the input layer (desktopd/input/)."""
