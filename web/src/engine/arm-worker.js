// An arm worker: one wasm instance training one arm at a time for the engine's
// worker (engine/arms.js trainInWorkers). Each message {request} is answered by
// progress messages {progress: ArmState, curve: {loss, validation}} (at most every
// 100 ms; curve: the training loss of the steps since the last message, and every
// validation point so far), then {value: {result, msPerStep, timing}} (typed arrays
// transferred) or {error}.
import createPosenc from '../../generated/posenc.mjs';
import { trainArm } from './arms.js';
import { detach } from './detach.js';

const module = createPosenc();

self.onmessage = async ({ data }) => {
  try {
    const pe = await module;
    const job = trainArm(pe, data.request);
    let posted = 0;
    let sent = 0;  // the steps whose loss was posted
    for (;;) {
      const { value, done } = job.next();
      if (done) {
        const { value: out, transfer } = detach(value);
        self.postMessage({ value: out }, transfer);
        return;
      }
      if (performance.now() - posted > 100) {
        const { curve, ...progress } = value;
        const piece = curve(sent);
        sent += piece.loss.length;
        self.postMessage({ progress, curve: piece }, [piece.loss.buffer]);
        posted = performance.now();
      }
    }
  } catch (error) {
    self.postMessage({ error: { message: String(error?.message ?? error), code: error?.code, param: error?.param,
      value: error?.value, allowed: error?.allowed } });
  }
};
