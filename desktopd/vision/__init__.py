"""Vision mode: text read from the screen's pixels (OCR on the CPU), the clicks and fills that
find their target by that text, and the act loop that lets a configured vision model drive the
visible desktop."""
