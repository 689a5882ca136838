// Frame view (webview): the captured framebuffer; a click debugs that pixel.
import { clickToFragCoord } from '../coords';
import { el, vscodeApi } from './api';

interface FrameMessage { type: 'frame'; frame: number; draw: number; width: number; height: number; png: string }
interface ErrorMessage { type: 'error'; message: string }

const img = el('frame', 'img');
const info = el('info', 'div');
const status = el('status', 'div');
let size = { width: 0, height: 0 };

window.addEventListener('message', (ev: MessageEvent<FrameMessage | ErrorMessage>) => {
  const m = ev.data;
  if (m.type === 'frame') {
    size = { width: m.width, height: m.height };
    img.src = `data:image/png;base64,${m.png}`;
    img.style.display = 'block';
    info.textContent = `frame ${m.frame}, before draw ${m.draw} — ${m.width}×${m.height}. Click a pixel to debug it (pixel history in the next frame).`;
    status.textContent = '';
  } else {
    status.textContent = m.message;
  }
});

img.addEventListener('mousemove', (ev) => {
  const p = clickToFragCoord(ev.offsetX, ev.offsetY, img.clientWidth, img.clientHeight, size.width, size.height);
  img.title = p ? `gl_FragCoord (${p.x}.5, ${p.y}.5)` : '';
});
img.addEventListener('click', (ev) => {
  const p = clickToFragCoord(ev.offsetX, ev.offsetY, img.clientWidth, img.clientHeight, size.width, size.height);
  if (!p) return;
  status.textContent = `debugging pixel (${p.x}, ${p.y})…`;
  vscodeApi.postMessage({ type: 'debugPixel', x: p.x, y: p.y });
});
el('refresh', 'button').addEventListener('click', () => vscodeApi.postMessage({ type: 'refresh' }));
vscodeApi.postMessage({ type: 'ready' });
