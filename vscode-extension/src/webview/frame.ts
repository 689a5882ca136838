// Frame view (webview): the captured framebuffer; a click debugs that pixel.
import { clickToFragCoord, fragYFromBottom, type Origin, type Pixel } from '../coords';
import { el, vscodeApi } from './api';

/** The `shaderdbg/frameImage` body (see dap/src/custom.rs). */
interface FrameMessage {
  type: 'frame'; frame: number; draw: number; width: number; height: number; png: string;
  shows?: 'beforeDraw' | 'afterSubmission'; origin?: Origin;
}
interface ErrorMessage { type: 'error'; message: string }

const img = el('frame', 'img');
const info = el('info', 'div');
const status = el('status', 'div');
let size = { width: 0, height: 0 };
let origin: Origin | undefined;

/** The pixel under the mouse as the shader names it (gl_FragCoord in the stopped API). */
function pixelAt(ev: MouseEvent): Pixel | undefined {
  const p = clickToFragCoord(ev.offsetX, ev.offsetY, img.clientWidth, img.clientHeight, size.width, size.height);
  return p && { x: p.x, y: fragYFromBottom(p.y, size.height, origin) };
}

window.addEventListener('message', (ev: MessageEvent<FrameMessage | ErrorMessage>) => {
  const m = ev.data;
  if (m.type === 'frame') {
    size = { width: m.width, height: m.height };
    origin = m.origin;
    img.src = `data:image/png;base64,${m.png}`;
    img.style.display = 'block';
    // The Vulkan layer runs the stopped submission before it stops: its image has every draw of it done.
    const when = m.shows === 'afterSubmission' ? `after the submission of draw ${m.draw}` : `before draw ${m.draw}`;
    info.textContent = `frame ${m.frame}, ${when} — ${m.width}×${m.height}. Click a pixel to debug it (pixel history in the next frame).`;
    status.textContent = '';
  } else {
    status.textContent = m.message;
  }
});

img.addEventListener('mousemove', (ev) => {
  const p = pixelAt(ev);
  img.title = p ? `gl_FragCoord (${p.x}.5, ${p.y}.5)` : '';
});
img.addEventListener('click', (ev) => {
  const p = pixelAt(ev);
  if (!p) return;
  status.textContent = `debugging pixel (${p.x}, ${p.y})…`;
  vscodeApi.postMessage({ type: 'debugPixel', x: p.x, y: p.y });
});
el('refresh', 'button').addEventListener('click', () => vscodeApi.postMessage({ type: 'refresh' }));
vscodeApi.postMessage({ type: 'ready' });
