"""Small scripts that aiming and acting both run in the page."""

# Resolves after the page drew the next frame (two animation frames: the one in progress may
# have been drawn before a change it should show).
NEXT_FRAME = "new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))"
# The same, as a function called on an element (Runtime.callFunctionOn).
NEXT_FRAME_FUNCTION = "function () { return %s; }" % NEXT_FRAME
# At once for a hidden tab: it draws no frames (its input goes by CDP).
PAINTED = "document.hidden || " + NEXT_FRAME
# The element (``this``) to the middle of its view, instantly (a page's smooth scrolling would
# move it after it was measured): a statement.
CENTRE = 'this.scrollIntoView({block: "center", inline: "center", behavior: "instant"})'
TO_MIDDLE = "function () { %s; }" % CENTRE
# The same, resolving once the frames above followed it.
TO_MIDDLE_DRAWN = "function () { %s; return %s; }" % (CENTRE, NEXT_FRAME)
