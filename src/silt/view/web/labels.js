// Labels that do not overlap (gauges, cross sections): each label tries a few places around its
// anchor, in order, and takes the first whose box overlaps no label placed before it, no anchor
// point and stays in the window; a label with no such place is hidden. Greedy, in the order given
// (the selected gauge first keeps its label).
'use strict';

const kLabelPlaces = [[8, -6, 'left'], [8, 14, 'left'], [-8, -6, 'right'], [-8, 14, 'right'],
  [0, -12, 'centre'], [0, 22, 'centre'], [14, 4, 'left'], [-14, 4, 'right']];

// items: [{text, x, y}] (anchor in CSS px); returns [{text, x, y, box: [x0, y0, x1, y1], shown}]
// with x, y where fillText draws (left baseline) when shown.
function placeLabels(ctx, items, width, height) {
  const h = 13, pad = 2, anchor = 6;
  const boxes = items.map((it) => [it.x - anchor, it.y - anchor, it.x + anchor, it.y + anchor]);
  const overlaps = (a, b) => a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3];
  const placed = [];
  return items.map((it, k) => {
    const w = ctx.measureText(it.text).width;
    for (const [dx, dy, align] of kLabelPlaces) {
      const x = align === 'left' ? it.x + dx : align === 'right' ? it.x + dx - w : it.x - w / 2;
      const y = it.y + dy;
      const box = [x - pad, y - h + 2 - pad, x + w + pad, y + 3 + pad];
      if (box[0] < 0 || box[1] < 0 || box[2] > width || box[3] > height) continue;
      if (placed.some((b) => overlaps(b, box))) continue;
      if (boxes.some((b, q) => q !== k && overlaps(b, box))) continue;
      placed.push(box);
      return {text: it.text, x, y, box, shown: true};
    }
    return {text: it.text, x: it.x, y: it.y, box: null, shown: false};
  });
}
