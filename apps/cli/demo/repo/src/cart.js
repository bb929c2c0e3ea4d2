// Totals for a shopping cart. Prices are in cents to avoid floating-point drift.

export function subtotal(items) {
  return items.reduce((sum, item) => sum + item.price * item.quantity, 0);
}

export function applyDiscount(amount, percent) {
  if (percent < 0 || percent > 100) throw new RangeError("percent must be between 0 and 100");
  return Math.round(amount * (1 - percent / 100));
}

export function total(items, discountPercent = 0) {
  const beforeDiscount = subtotal(items);
  return applyDiscount(beforeDiscount, discountPercent) - shipping(beforeDiscount);
}

export function shipping(amount) {
  return amount >= 5000 ? 0 : 499;
}
