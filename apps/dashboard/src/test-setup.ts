import '@testing-library/jest-dom/vitest';

// Platform APIs jsdom lacks, as a browser that matches no media query and never resizes would answer them (uPlot
// reads the pixel ratio through matchMedia when it loads; the chart watches its container's size).
if (!window.matchMedia) {
  window.matchMedia = (query: string): MediaQueryList => {
    const list: Pick<MediaQueryList, 'matches' | 'media' | 'onchange'> & Record<string, unknown> = {
      matches: false, media: query, onchange: null,
      addListener: () => undefined, removeListener: () => undefined, addEventListener: () => undefined,
      removeEventListener: () => undefined, dispatchEvent: () => false,
    };
    return list as unknown as MediaQueryList;
  };
}
if (typeof window.ResizeObserver === 'undefined') {
  window.ResizeObserver = class {
    observe(): void {}
    unobserve(): void {}
    disconnect(): void {}
  };
}

// jsdom has no canvas: a 2D context (and Path2D) that accepts every call and draws nothing, so the overview's uPlot
// chart mounts as in a browser. Reads answer 0 (measureText(...).width, lineWidth); calls answer the same inert value.
function inert(): object {
  const target = function inertValue() {};
  return new Proxy(target, {
    get: (_target, key) => (key === Symbol.toPrimitive ? () => 0 : key === 'width' || key === 'height' ? 0 : inert()),
    set: () => true,
    apply: () => inert(),
    construct: () => inert(),
  });
}
HTMLCanvasElement.prototype.getContext = function getContext() {
  return inert() as unknown as null;
} as typeof HTMLCanvasElement.prototype.getContext;
if (!('Path2D' in window)) {
  Object.defineProperty(window, 'Path2D', { value: inert(), configurable: true, writable: true });
}
