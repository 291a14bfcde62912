// Checks that the page came up whole: this script ran, the stylesheet applied,
// the image decoded and the JSON data loaded; writes the verdict into #status.
// It checks once the page has loaded: Chromium may run a deferred script before the
// stylesheet above it has arrived (seen in Qt WebEngine 6.4 on a busy machine).
(async function () {
  if (document.readyState !== 'complete') {
    await new Promise((resolve) => window.addEventListener('load', resolve, { once: true }));
  }
  const status = document.getElementById('status');
  const checks = [];
  const headerStyle = getComputedStyle(document.querySelector('header'));
  checks.push(headerStyle.display === 'flex' ? 'style' : 'style-missing');
  const logo = document.getElementById('logo');
  try {
    await logo.decode();
    checks.push(logo.naturalWidth === 48 ? 'image' : 'image-wrong-size');
  } catch (e) {
    checks.push('image-missing');
  }
  try {
    const config = await (await fetch('data/config.json')).json();
    const list = document.getElementById('features');
    for (const feature of config.features) {
      const item = document.createElement('li');
      item.textContent = feature;
      list.appendChild(item);
    }
    checks.push('data');
  } catch (e) {
    checks.push('data-missing');
  }
  const ok = checks.every((c) => !c.includes('-'));
  status.textContent = (ok ? 'ready: ' : 'broken: ') + ['script'].concat(checks).join(' ');
  if (ok) status.classList.add('ready');
})();
