function () {
  this.focus();
  if (typeof this.select === 'function' && !(this instanceof HTMLSelectElement)) { this.select(); return true; }
  if (this.isContentEditable) {
    const range = document.createRange(); range.selectNodeContents(this);
    const sel = getSelection(); sel.removeAllRanges(); sel.addRange(range); return true;
  }
  return false;
}