// Size each posenc iframe to its content: embed.html posts {type: 'posenc:resize', height}.
addEventListener('message', (event) => {
  if (!event.data || event.data.type !== 'posenc:resize') return;
  for (const frame of document.querySelectorAll('iframe')) {
    if (frame.contentWindow === event.source) frame.style.height = `${event.data.height}px`;
  }
});
