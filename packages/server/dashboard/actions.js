// Confirmed operator actions: the confirmation dialog, the toast that reports the outcome.

import { describeError } from './api.js';
import { refresh } from './route.js';

let toastTimer;
function toast(message, bad = false) {
  const el = document.getElementById('toast');
  el.textContent = message;
  el.className = bad ? 'show bad' : 'show';
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => (el.className = ''), 4000);
}

/**
 * Asks before an action. `extra` are form controls shown in the dialog; resolves with the
 * dialog's form (to read them) when confirmed, or undefined.
 */
function confirmAction(text, extra = []) {
  const dialog = document.getElementById('confirm');
  document.getElementById('confirm-text').textContent = text;
  const holder = document.getElementById('confirm-extra');
  holder.replaceChildren(...extra);
  return new Promise((resolve) => {
    const onClose = () => {
      // A close event of an earlier opening, delivered after this one began: not our answer.
      if (dialog.open) return;
      dialog.removeEventListener('close', onClose);
      resolve(dialog.returnValue === 'ok' ? dialog.querySelector('form') : undefined);
    };
    dialog.addEventListener('close', onClose);
    dialog.returnValue = '';
    dialog.showModal();
  });
}

/** Runs a confirmed action, reports it, and reloads the page shown. */
export async function act(question, work, extra) {
  const form = await confirmAction(question, extra);
  if (!form) return;
  try {
    const done = await work(form);
    toast(done ?? 'done');
  } catch (error) {
    toast(describeError(error), true);
  }
  await refresh();
}
