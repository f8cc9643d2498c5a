// A batch's answers (docs/wire.md §7): each request member adds one, and the array is sent
// once the batch was read to its end and the last of them is ready.

export class Batch {
  private readonly answers: object[] = [];
  private outstanding = 0;
  private sealed = false;

  constructor(private readonly send: (answers: object[]) => void) {}

  /** A request member started: one more answer to wait for. */
  expect(): void {
    this.outstanding++;
  }

  /** An answer to a member that was `expect`ed. */
  answer(message: object): void {
    this.answers.push(message);
    this.outstanding--;
    this.flush();
  }

  /** An answer given at once (an invalid member): never `expect`ed. */
  immediate(message: object): void {
    this.answers.push(message);
  }

  /** Every member was handled: the array goes once the last answer is in. */
  seal(): void {
    this.sealed = true;
    this.flush();
  }

  private flush(): void {
    // A batch of notifications only gets no answer at all.
    if (this.sealed && this.outstanding === 0 && this.answers.length > 0) {
      this.send(this.answers.splice(0));
    }
  }
}
