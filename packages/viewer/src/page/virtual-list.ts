// A scrolling list that renders only the rows in view, with TanStack Virtual measuring each row (rows grow
// when opened). Rows are rebuilt only when their content changes, so a row's size is measured once.
import {
  elementScroll,
  measureElement,
  observeElementOffset,
  observeElementRect,
  Virtualizer,
} from "@tanstack/virtual-core";
import { h } from "./dom.js";

export interface VirtualList {
  readonly element: HTMLElement;
  /** Rebuild the rows (new data, or a row opened); keeps the scroll position. */
  refresh(count: number, changed?: number): void;
  scrollToEnd(): void;
  scrollTo(index: number): void;
  atEnd(): boolean;
}

export function virtualList(
  count: number,
  renderRow: (index: number) => HTMLElement,
  options: { readonly estimate: number; readonly onFirstPaint?: () => void },
): VirtualList {
  const scroller = h("div", { class: "scroller" });
  const inner = h("div", { class: "scroller-inner" });
  scroller.append(inner);
  const shown = new Map<number, HTMLElement>();
  let painted = false;

  const paint = (v: Virtualizer<HTMLElement, HTMLElement>) => {
    inner.style.height = `${v.getTotalSize()}px`;
    const items = v.getVirtualItems();
    const keep = new Set(items.map((item) => item.index));
    for (const [index, el] of shown) {
      if (!keep.has(index)) {
        el.remove();
        shown.delete(index);
      }
    }
    for (const item of items) {
      let el = shown.get(item.index);
      if (!el) {
        el = renderRow(item.index);
        el.dataset.index = String(item.index);
        el.classList.add("vrow");
        inner.append(el);
        shown.set(item.index, el);
        v.measureElement(el);
      }
      el.style.transform = `translateY(${item.start}px)`;
    }
    if (!painted && (items.length > 0 || v.options.count === 0)) {
      painted = true;
      options.onFirstPaint?.();
    }
  };

  const virtualizer = new Virtualizer<HTMLElement, HTMLElement>({
    count,
    getScrollElement: () => scroller,
    estimateSize: () => options.estimate,
    overscan: 8,
    scrollToFn: elementScroll,
    observeElementRect,
    observeElementOffset,
    measureElement,
    onChange: (v) => paint(v),
  });

  const mount = () => {
    virtualizer._didMount();
    virtualizer._willUpdate();
    paint(virtualizer);
  };
  // Mounted once the element is in the document (its size is known then).
  queueMicrotask(mount);

  return {
    element: scroller,
    refresh(nextCount, changed) {
      if (changed === undefined) {
        for (const el of shown.values()) el.remove();
        shown.clear();
      } else {
        shown.get(changed)?.remove();
        shown.delete(changed);
      }
      virtualizer.setOptions({ ...virtualizer.options, count: nextCount });
      virtualizer._willUpdate();
      paint(virtualizer);
    },
    scrollTo(index) {
      virtualizer.scrollToIndex(index, { align: "center" });
    },
    scrollToEnd() {
      virtualizer.scrollToIndex(virtualizer.options.count - 1, { align: "end" });
    },
    atEnd() {
      return scroller.scrollTop + scroller.clientHeight >= scroller.scrollHeight - 4;
    },
  };
}
