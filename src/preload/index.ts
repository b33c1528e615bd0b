/**
 * The renderer's only door to the main process (semantics §10): `window.api = {call, onEvent}`.
 * No raw ipcRenderer, no channel names chosen by the page; runs sandboxed with contextIsolation.
 * Channel names are repeated here (not imported) because a sandboxed preload bundles alone.
 */
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import type { LoupeBridge } from './api.js';

const api: LoupeBridge = {
  call: (operation, input, callId) => ipcRenderer.invoke('loupe:call', operation, input, callId) as ReturnType<LoupeBridge['call']>,
  cancel: (callId) => ipcRenderer.send('loupe:cancel', callId),
  onEvent(listener) {
    const wrapped = (_event: IpcRendererEvent, payload: unknown) => listener(payload);
    ipcRenderer.on('loupe:event', wrapped);
    return () => ipcRenderer.removeListener('loupe:event', wrapped);
  },
};

contextBridge.exposeInMainWorld('api', api);
