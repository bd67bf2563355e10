"""The sidecar's layout builder: accessibility nodes with document, viewport and screen bounds."""

from .builder import build_layout
from .options import LayoutOptions

__all__ = ["LayoutOptions", "build_layout"]
