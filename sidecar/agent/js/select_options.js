function (wanted) {
  if (!(this instanceof HTMLSelectElement)) return {error: 'not a select element'};
  const chosen = [];
  for (const want of wanted) {
    const option = [...this.options].find(o => o.value === want) ||
                   [...this.options].find(o => o.label === want || o.text.trim() === want);
    if (!option) return {error: 'no option with value or label ' + JSON.stringify(want)};
    chosen.push(option);
    if (!this.multiple) break;
  }
  for (const o of this.options) o.selected = chosen.includes(o);
  this.dispatchEvent(new Event('input', {bubbles: true}));
  this.dispatchEvent(new Event('change', {bubbles: true}));
  return {selected: chosen.map(o => o.value)};
}