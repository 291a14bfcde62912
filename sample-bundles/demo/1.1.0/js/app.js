// Checks that the page came up whole: this script ran, the stylesheet applied,
// the image decoded and the JSON data loaded; writes the verdict into #status.
(async function () {
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
