{screenX, screenY, outerWidth, outerHeight, innerWidth, innerHeight,
  dpr: devicePixelRatio,
  clientWidth: document.documentElement ? document.documentElement.clientWidth : innerWidth,
  clientHeight: document.documentElement ? document.documentElement.clientHeight : innerHeight}