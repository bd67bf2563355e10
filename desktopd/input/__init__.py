"""The input layer: pointer events and keystrokes run on the X thread, with held buttons and
keys released on failure. HTTP handlers, /step and the computer-use formats all drive input
through it; nothing here knows about requests."""
