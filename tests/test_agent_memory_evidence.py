"""A remembered fact is the model's own sentence. Readers playing the verifier saw "Julia Rossi starred (read at
step 4, Contacts)" presented like something read off the screen, when it was only the agent's claim: each fact
now carries the screen text that backs it, or says that nothing on that screen did."""

from __future__ import annotations

from relay_desktop.agent.memory import Memory, evidence_for

CONTACT_CARD = ["Hannah Schmidt", "Mobile · 555-0104", "Call", "Text", "Add to favourites"]


def test_a_number_read_off_the_screen_is_quoted_with_the_text_that_shows_it() -> None:
    assert evidence_for("Hannah's mobile is 555-0104", CONTACT_CARD) == "Mobile · 555-0104"


def test_a_claim_the_screen_does_not_show_is_marked_as_such() -> None:
    assert evidence_for("Hannah's mobile is 555-0199", CONTACT_CARD) == ""           # a number not on screen
    assert evidence_for("Part 1 done: texted Julia", CONTACT_CARD) == ""              # nothing matches
    # One shared word is not backing: a fact without numbers needs two of its words on one text.
    assert evidence_for("Favourites updated for Julia", CONTACT_CARD) == ""
    assert evidence_for("Hannah Schmidt is a contact", CONTACT_CARD) == "Hannah Schmidt"


def test_facts_say_where_they_were_noted_and_what_backs_them() -> None:
    memory = Memory()
    memory.add(["Hannah's mobile is 555-0104", "Julia Rossi starred"], 4, "com.google.android.contacts",
               CONTACT_CARD)
    text = memory.text("Facts:")
    assert "- Hannah's mobile is 555-0104 (noted at step 4, com.google.android.contacts; the screen showed " \
           "\"Mobile · 555-0104\")" in text
    assert "- Julia Rossi starred (noted at step 4, com.google.android.contacts; no matching text on that " \
           "screen)" in text
    assert "read at" not in text


def test_long_screen_text_is_quoted_in_part() -> None:
    long = "Order #SH-10421 · " + "Phone Case, " * 20 + "Total paid $14.40"
    quoted = evidence_for("order SH-10421 paid", [long])
    assert quoted.startswith("Order #SH-10421") and quoted.endswith("…") and len(quoted) <= 120


def test_a_fact_gathered_from_several_texts_is_backed_by_them_together() -> None:
    """A reader's true "Order #SH-10421, 1 × Bluetooth Speaker, total paid $39.99" was marked unbacked: the
    order screen shows each part as its own text."""
    order = ["Order placed", "Order #SH-10421", "1 × Bluetooth Speaker", "Total paid $39.99", "Done"]
    quoted = evidence_for("Order #SH-10421, 1 × Bluetooth Speaker, total paid $39.99", order)
    assert quoted == "Order #SH-10421 | Total paid $39.99"
    assert evidence_for("Order #SH-10421, total paid $41.00", order) == ""     # one number not on screen


def test_a_fact_restating_the_task_is_backed_by_the_task() -> None:
    """A reader's "New contact: Lena Vogel, 555-0190" was marked unbacked though the user's task said it."""
    memory = Memory(task="Add Lena Vogel (555-0190) to my contacts, then text her 'Welcome to the team!'")
    memory.add(["New contact: Lena Vogel, 555-0190"], 1, "com.android.launcher3", ["Phone", "Contacts"])
    assert ("(noted at step 1, com.android.launcher3; not shown on that screen — only the user's task says "
            "\"Add Lena Vogel (555-0190)") in memory.text("F:")


def test_a_number_the_task_gave_is_not_named_as_missing_from_the_screen() -> None:
    """A reader's notes on products under the task's $40 limit all carried "not on it: 40"."""
    memory = Memory(task="Add the best-rated product under $40 to my cart")
    memory.add(["Cast Iron Skillet 4.8 stars $39.99, under 40"], 3, "com.relay.shop",
               ["Cast Iron Skillet · 4.8 ★ · $39.99"])
    assert "not on it" not in memory.facts[0].line(), memory.facts[0].line()


def test_a_fact_the_screen_shows_in_part_quotes_that_part_and_names_what_it_does_not_show() -> None:
    """A reader's "Today is Wed Nov 25, 11:10; tomorrow is Nov 26" was "no matching text": the clock said most of it."""
    memory = Memory()
    memory.add(["Today is Wed Nov 25, 11:10; tomorrow is Nov 26"], 1, "launcher",
               ["11:10 · Wednesday, November 25", "Chrome"])
    assert memory.facts[0].line() == ('- Today is Wed Nov 25, 11:10; tomorrow is Nov 26 (noted at step 1, launcher; '
                                      'the screen showed "11:10 · Wednesday, November 25"; not on it: 26)')
