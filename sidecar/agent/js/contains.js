function (hit) {
  for (let n = hit; n; n = n.parentNode || n.host) if (n === this) return true;
  return false;
}