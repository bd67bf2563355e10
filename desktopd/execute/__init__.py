"""POST /api/v1/execute: commands and detached GUI apps in the desktop session, run by the process
runner (processes.py) that OSWorld's command routes share."""
