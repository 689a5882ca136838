// "Values over the draw" (webview): per-fragment values painted with a colour
// scale; min/max; NaN/Inf highlighted; hover for the exact value.
import { clickToFragCoord } from '../coords';
import { decode, defaultChannel, formatFloat, formatValue, fragCoordY, paint, valueAt, viridis, type Channel, type ValuesImage, type ValuesImageBody } from '../values';
import { el, vscodeApi } from './api';

interface ValuesMessage { type: 'values'; body: ValuesImageBody }
interface ErrorMessage { type: 'error'; message: string }

const canvas = el('values', 'canvas');
const title = el('title', 'div');
const range = el('range', 'div');
const flags = el('flags', 'div');
const hover = el('hover', 'div');
const select = el('channel', 'select');
const scale = el('scale', 'canvas');
const status = el('status', 'div');
let current: ValuesImage | undefined;
let channel: Channel = 0;

function drawScale(): void {
  const ctx = scale.getContext('2d');
  if (!ctx) return;
  for (let x = 0; x < scale.width; x++) {
    const [r, g, b] = viridis(x / (scale.width - 1));
    ctx.fillStyle = `rgb(${r},${g},${b})`;
    ctx.fillRect(x, 0, 1, scale.height);
  }
}

function render(): void {
  const img = current;
  if (!img) return;
  const { width, height, components, type, expression, line } = img.body;
  canvas.width = width; canvas.height = height;
  const ctx = canvas.getContext('2d');
  if (ctx) ctx.putImageData(new ImageData(paint(img, channel), width, height), 0, 0);
  canvas.style.display = 'block';
  title.textContent = `${expression} : ${type} — before line ${line} — ${width}×${height}`;
  const fmt = (v: number | null): string => (v === null ? '—' : formatFloat(v));
  const comps = channel === 'rgb' ? [0, 1, 2].filter((k) => k < components) : [channel];
  range.textContent = comps.map((k) => `${components > 1 ? `[${k}] ` : ''}min ${fmt(img.body.min[k] ?? null)}  max ${fmt(img.body.max[k] ?? null)}`).join('   ');
  scale.style.display = channel === 'rgb' ? 'none' : 'inline-block';
  flags.textContent = `NaN: ${img.body.nan} pixel(s) (magenta)   Inf: ${img.body.inf} pixel(s) (red)`;
  flags.className = img.body.nan + img.body.inf > 0 ? 'bad' : '';
}

function fillChannels(components: number): void {
  select.replaceChildren();
  const add = (value: string, label: string): void => { const o = document.createElement('option'); o.value = value; o.textContent = label; select.appendChild(o); };
  if (components >= 2 && components <= 4) add('rgb', 'RGB (first three components)');
  for (let k = 0; k < components; k++) add(String(k), components === 1 ? 'value' : `component ${k}`);
  channel = defaultChannel(components);
  select.value = String(channel);
}

select.addEventListener('change', () => { channel = select.value === 'rgb' ? 'rgb' : Number(select.value); render(); });

canvas.addEventListener('mousemove', (ev) => {
  const img = current;
  if (!img) return;
  const p = clickToFragCoord(ev.offsetX, ev.offsetY, canvas.clientWidth, canvas.clientHeight, img.body.width, img.body.height);
  if (!p) { hover.textContent = ''; return; }
  const v = valueAt(img, p.x, p.y);
  hover.textContent = `(${p.x}, ${fragCoordY(img.body, p.y)}): ${v ? formatValue(img.body.type, v) : 'not covered by the draw'}`;
  canvas.title = hover.textContent;
});

window.addEventListener('message', (ev: MessageEvent<ValuesMessage | ErrorMessage>) => {
  const m = ev.data;
  if (m.type === 'values') {
    try {
      current = decode(m.body);
      fillChannels(m.body.components);
      status.textContent = '';
      render();
    } catch (e) {
      status.textContent = String(e);
    }
  } else {
    status.textContent = m.message;
  }
});
drawScale();
vscodeApi.postMessage({ type: 'ready' });
