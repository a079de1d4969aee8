// The warnings of a shell: values from a link (or attributes) that were
// refused and replaced by their defaults, unknown keys. Each names the
// parameter and the value; the list can be dismissed.

/**
 * @param {HTMLElement} box  an element with role="status"
 * @returns {{add(w: {param: string, message: string, id?: string}): void, clear(): void, list(): object[]}}
 */
export function createWarnings(box) {
  const items = [];
  function draw() {
    box.hidden = items.length === 0;
    if (box.hidden) { box.replaceChildren(); return; }
    const list = document.createElement('ul');
    for (const w of items) {
      const item = document.createElement('li');
      item.dataset.param = w.param;
      item.textContent = w.message;
      list.append(item);
    }
    const close = document.createElement('button');
    close.type = 'button';
    close.className = 'tool';
    close.textContent = 'dismiss';
    close.setAttribute('aria-label', 'Dismiss these warnings');
    close.addEventListener('click', () => { items.length = 0; draw(); });
    const heading = document.createElement('p');
    heading.textContent = 'Some settings of this link were not used:';
    box.replaceChildren(heading, list, close);
  }
  return {
    /** Adds w once (by its message); a warning with an id replaces the last one of that id (a fallback's, said under way). */
    add(w) {
      const same = w.id === undefined ? -1 : items.findIndex((x) => x.id === w.id);
      if (same >= 0) items.splice(same, 1);
      if (!items.some((x) => x.message === w.message)) items.push(w);
      draw();
    },
    clear() { items.length = 0; draw(); },
    list: () => [...items],
  };
}
