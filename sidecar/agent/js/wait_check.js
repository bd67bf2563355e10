(() => {
  const text = document.body ? document.body.innerText : '';
  return {text, url: location.href, state: document.readyState};
})()