"""Step records: a versioned episode directory format (format.py, schema/), its Recorder and
EpisodeReader, and an export to the Multimodal-Mind2Web layout (export.py)."""

from .demonstration import Demonstration
from .format import VERSION, schema
from .reader import EpisodeReader, StepView
from .recorder import Recorder
from .writer import EpisodeWriter

__all__ = ["VERSION", "Demonstration", "EpisodeReader", "EpisodeWriter", "Recorder", "StepView", "schema"]
