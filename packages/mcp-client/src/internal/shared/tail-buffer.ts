/** Keeps the last `capacity` characters written to it, without growing (amortised O(1) per write). */
export class TailBuffer {
  private text = "";

  constructor(readonly capacity: number) {}

  /** Append text, dropping what falls out of the window. */
  write(chunk: string): void {
    this.text += chunk;
    if (this.text.length > this.capacity * 2) this.text = this.text.slice(-this.capacity);
  }

  /** The last `max` (default: capacity) characters. */
  tail(max: number = this.capacity): string {
    return this.text.length > max ? this.text.slice(-max) : this.text;
  }

  /** Forget everything. */
  clear(): void {
    this.text = "";
  }
}
