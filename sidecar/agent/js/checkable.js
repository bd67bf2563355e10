function () {
  const t = this.type;
  if (this instanceof HTMLInputElement && (t === 'checkbox' || t === 'radio')) return {checked: this.checked};
  const state = this.getAttribute('aria-checked');
  if (state !== null) return {checked: state === 'true'};
  return null;
}