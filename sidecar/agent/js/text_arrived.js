function (text) {
  const value = 'value' in this ? String(this.value) : this.textContent;
  return value.includes(text);
}