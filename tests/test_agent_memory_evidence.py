"""A remembered fact is the model's own sentence. Readers playing the verifier saw "Julia Rossi starred (read at
step 4, Contacts)" presented like something read off the screen, when it was only the agent's claim: each fact
now carries the screen text that backs it, or says that nothing on that screen did."""

from __future__ import annotations

from relay_desktop.agent.memory.facts import Memory, evidence_for

CONTACT_CARD = ["Hannah Schmidt", "Mobile · 555-0104", "Call", "Text", "Add to favourites"]


def test_a_number_read_off_the_screen_is_quoted_with_the_text_that_shows_it() -> None:
    # With the name it belongs to: the contact's name is a short label holding a word of the fact.
    assert evidence_for("Hannah's mobile is 555-0104", CONTACT_CARD) == "Hannah Schmidt | Mobile · 555-0104"


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
    assert "- F1: Hannah's mobile is 555-0104 (noted at step 4, com.google.android.contacts; the screen showed " \
           "\"Hannah Schmidt | Mobile · 555-0104\")" in text
    assert "- F2: Julia Rossi starred (noted at step 4, com.google.android.contacts; no matching text on that " \
           "screen)" in text
    assert "read at" not in text


def test_long_screen_text_is_quoted_in_part() -> None:
    long = "Order #SH-10421 · " + "Phone Case, " * 20 + "Total paid $14.40"
    quoted = evidence_for("order SH-10421 paid", [long])
    assert quoted.startswith("Order #SH-10421") and quoted.endswith("…") and len(quoted) <= 160


def test_a_fact_gathered_from_several_texts_is_backed_by_them_together() -> None:
    """A reader's true "Order #SH-10421, 1 × Bluetooth Speaker, total paid $39.99" was marked unbacked: the
    order screen shows each part as its own text."""
    order = ["Order placed", "Order #SH-10421", "1 × Bluetooth Speaker", "Total paid $39.99", "Done"]
    quoted = evidence_for("Order #SH-10421, 1 × Bluetooth Speaker, total paid $39.99", order)
    assert quoted == "Order #SH-10421 | 1 × Bluetooth Speaker | Total paid $39.99"
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
    assert memory.facts[0].line() == ('- F1: Today is Wed Nov 25, 11:10; tomorrow is Nov 26 (noted at step 1, '
                                      'launcher; the screen showed "11:10 · Wednesday, November 25"; not on it: 26)')


# --- issue 25: evidence found by words, on the screens the agent read -------------------------------------

CAROL_THREAD = ["Carol Nguyen", "02:32", "07:32",
                "Carol: Book club moved! We meet on the 12th now, 7:15pm, and bring 15 copies of the flyer",
                "Text message", "Send SMS"]


def test_a_fact_quoting_a_message_is_backed_by_the_message_not_by_times_sharing_its_digits() -> None:
    """Issue 25: `the screen showed "02:32 | 07:32"; not on it: 12, 15` for a note quoting Carol's message word
    for word that was on that screen."""
    memory = Memory()
    memory.add(["Carol's message at 07:32: Book club moved, we meet on the 12th now, 7:15pm, bring 15 copies of "
                "the flyer"], 5, "com.google.android.apps.messaging", CAROL_THREAD)
    line = memory.facts[0].line()
    assert 'the screen showed "07:32 | Carol: Book club moved!' in line, line
    assert "not on it" not in line and "02:32" not in line, line


def test_a_fact_is_matched_to_the_screen_before_the_task() -> None:
    """Issue 25: a fact the screen showed was matched to the task's words instead ("the task says …")."""
    memory = Memory(task="Check whether my Tuesday lunch with Priya is still on and tell me")
    memory.add(["Priya wrote: Tuesday lunch is cancelled, sorry!"], 3, "messaging",
               ["Priya Patel", "Priya: Tuesday lunch is cancelled, sorry!", "Yesterday"])
    line = memory.facts[0].line()
    assert 'the screen showed "Priya: Tuesday lunch is cancelled, sorry!"' in line and "task" not in line, line


def test_numbers_the_task_gave_and_values_the_agent_worked_out_are_shown_as_such() -> None:
    """Issue 25: numbers the task gave or the agent computed (a count, a discounted price) listed as 'not on it'."""
    memory = Memory(task="Which deal saves me the most? Anything under $200 is fine")
    memory.add(["Keyboard saves $60 = $139.99 − $79.99, under 200"], 6, "shop",
               ["Mechanical Keyboard · $79.99 · was $139.99"])
    line = memory.facts[0].line()
    assert "not on it" not in line, line
    assert "from the task: 200" in line and "worked out by the agent (inputs in the fact): 60" in line, line


def test_a_count_or_total_said_in_words_is_worked_out_not_missing() -> None:
    """Issue 25: a count the agent made ("13 products … counted") was listed as 'not on it' unless written with
    an "=": words that say it was counted or added up mark the numbers no screen shows as worked out."""
    memory = Memory()
    memory.add(["Counted 13 products rated 4.5 or more on the lists seen so far"], 9, "shop",
               ["Cast Iron Skillet · 4.8 ★ · $39.99", "Yoga Mat · 4.2 ★ · $25.00", "products rated 4.5"])
    line = memory.facts[0].line()
    assert "not on it" not in line and "worked out by the agent (inputs in the fact): 13" in line, line
    memory.add(["Cart total comes to $65.00 (Yoga Mat plus Cast Iron Skillet)"], 10, "shop",
               ["Cast Iron Skillet · 4.8 ★ · $39.99", "Yoga Mat · 4.2 ★ · $25.00"])
    assert "worked out by the agent (inputs in the fact): 65.00" in memory.facts[1].line(), memory.facts[1].line()
    # Without such words a number the screen lacks is still named as such: the check stays a check.
    memory.add(["Yoga Mat costs $27.00"], 11, "shop", ["Yoga Mat · 4.2 ★ · $25.00"])
    assert "not on it: 27.00" in memory.facts[2].line(), memory.facts[2].line()


def test_a_fact_read_one_screen_before_a_scroll_is_backed_by_that_screen() -> None:
    """Issue 25: facts read one screen earlier were judged against the screen after a scroll."""
    from relay_desktop.agent.memory.facts import Screen
    memory = Memory()
    before_scroll = Screen(7, "shop", ("Cast Iron Skillet · 4.8 ★ · $39.99", "Yoga Mat · 4.2 ★ · $25.00"))
    memory.add(["Cast Iron Skillet is rated 4.8 at $39.99"], 8, "shop", ["Desk Lamp · 4.1 ★ · $45.00"],
               earlier=[before_scroll])
    line = memory.facts[0].line()
    assert 'the screen at step 7 showed "Cast Iron Skillet · 4.8 ★ · $39.99"' in line, line


def test_a_fact_can_be_replaced_or_retired_and_only_the_current_version_travels() -> None:
    """Issue 25: 8 versions of 'Alarms ON so far' rode along in every later prompt, wrong ones included."""
    memory = Memory()
    memory.add(["Alarms ON so far: 6:00", "Maya's new number is 555-0177"], 2, "clock", ["6:00", "Maya · 555-0177"])
    memory.add(["F1: Alarms ON so far: 6:00, 6:30"], 3, "clock", ["6:00", "6:30"])
    memory.add(["forget F2"], 4, "clock", [])
    text = memory.text()
    assert text.count("Alarms ON so far") == 1 and "6:00, 6:30" in text, text
    assert "555-0177" not in text
    memory.forget(["F1"])
    assert not memory


def test_when_room_runs_out_progress_notes_go_before_facts_and_the_model_is_told() -> None:
    """Issue 25: the cap dropped the OLDEST facts silently — the note the whole task was about — and the prompt
    never said there was a cap."""
    memory = Memory(max_facts=3)
    memory.add(["Note 'Trip' says: flight LH 1234 at 09:40"], 1, "keep", ["Flight LH 1234 at 09:40"])
    memory.add(["Done so far: texted Ann"], 2, "messages", [])
    memory.add(["Ann's number is 555-0101"], 3, "contacts", ["Ann · 555-0101"])
    memory.add(["Bob's number is 555-0102"], 4, "contacts", ["Bob · 555-0102"])
    text = memory.text()
    assert "LH 1234" in text and "555-0101" in text and "555-0102" in text, text
    assert "Done so far" not in text.split("(the list")[0]
    assert "limited to 3 facts" in text and '"Done so far: texted Ann"' in text, text
    assert "room for 3" in text


def test_the_verifier_gets_the_whole_lines_the_facts_were_read_from_within_a_budget() -> None:
    memory = Memory()
    memory.add(["Carol's message: Book club moved, we meet on the 12th now, 7:15pm, bring 15 copies"], 5,
               "messaging", CAROL_THREAD)
    read = memory.read_text()
    assert CAROL_THREAD[3] in read and "step 5" in read, read
    assert len(Memory().read_text()) == 0
    for n in range(40):
        memory.add([f"Contact {n} Person{n} number 555-{1000 + n}"], 6, "contacts", [f"Person{n} · 555-{1000 + n}"])
    assert len(memory.read_text(budget=300)) < 400


def test_a_key_the_model_made_up_is_not_kept_in_the_fact() -> None:
    """A reader saw "- F1: F1: …": the model wrote a key for a new fact."""
    memory = Memory()
    memory.add(["F1: the market opens at 8 am"], 3, "chrome", ["The riverside farmers market opens at 8 am"])
    assert memory.facts[0].key == "F1" and memory.facts[0].text == "the market opens at 8 am"


def test_the_screen_a_fact_was_noted_on_wins_over_a_headline_seen_before() -> None:
    """A reader: the article's line on the current screen was backed by the headline of the step before."""
    from relay_desktop.agent.memory.facts import Screen
    memory = Memory()
    headline = Screen(2, "chrome", ("Farmers market reopens on Saturday · City Herald",))
    memory.add(["City Herald article: 'The riverside farmers market reopens this Saturday from 8 am to 1 pm.'"], 3,
               "chrome", ["City Herald", "The riverside farmers market reopens this Saturday from 8 am to 1 pm."],
               earlier=[headline])
    evidence = memory.facts[0].evidence
    assert "The riverside farmers market reopens this Saturday from 8 am to 1 pm." in evidence
    assert "Farmers market reopens on Saturday" not in evidence and memory.facts[0].seen_at == 3


def test_a_fact_about_several_rows_and_their_switches_is_backed_by_those_rows() -> None:
    """A reader's verifier rejected a right count of alarms: the fact's quote held only "06:30 | 07:15 | 08:00",
    without the switches' states, and said "not on it: 09, 45" though 09:45 was on that screen."""
    memory = Memory()
    rows = ["Alarm", "06:30", "Turn on 06:30 alarm · off", "07:15", "Turn off 07:15 alarm · on", "08:00",
            "Turn off 08:00 alarm · on", "09:45", "Turn on 09:45 alarm · off", "21:00", "Turn off 21:00 alarm · on"]
    memory.add(["Alarms: 06:30 off, 07:15 on, 08:00 on, 09:45 off, 21:00 on"], 4, "clock", rows)
    line = memory.facts[0].line()
    assert "not on it" not in line, line
    assert "Turn" in memory.facts[0].evidence and " on" in memory.facts[0].evidence, memory.facts[0].evidence


def test_evidence_from_an_earlier_screen_names_that_screen_s_app() -> None:
    """A reader: Dave's text in Messages was quoted as the proof of a fact noted in Contacts, labelled Contacts."""
    from relay_desktop.agent.memory.facts import Screen
    memory = Memory()
    text = Screen(3, "com.google.android.apps.messaging", ("Dave: Maya's new number is 555-0177, old one gone",))
    memory.add(["Maya's new number is 555-0177"], 6, "com.google.android.contacts", ["Maya Patel", "Edit"],
               earlier=[text])
    assert "(screen at step 3, com.google.android.apps.messaging)" in memory.read_text()
    assert "the screen at step 3 (com.google.android.apps.messaging) showed" in memory.facts[0].line()


def test_a_fact_about_rows_quotes_their_days_too() -> None:
    """A reader's verifier asked for proof again: a fact on weekday alarms quoted the switches, not the days."""
    memory = Memory()
    rows = ["06:45", "School run", "Mon, Tue, Wed, Thu, Fri", "Turn off 06:45 alarm · on", "07:00", "Dog walk",
            "Sat, Sun", "Turn off 07:00 alarm · on"]
    memory.add(["06:45 School run Mon, Tue, Wed, Thu, Fri is on; 07:00 Dog walk Sat, Sun is on"], 4, "clock", rows)
    evidence = memory.facts[0].evidence
    assert "Mon, Tue, Wed, Thu, Fri" in evidence and "Sat, Sun" in evidence, evidence


def test_a_value_the_agent_derived_with_an_equals_sign_is_worked_out_whichever_side_it_is_on() -> None:
    """A reader: 'this Saturday = Nov 28' was tagged 'not on it: 28' beside the date line it was worked out from,
    while '$30 = …' was 'worked out by the agent' — one kind of fact, two labels."""
    memory = Memory()
    memory.add(["This Saturday = Nov 28 (today is Thursday, November 26)"], 3, "launcher",
               ["19:31 · Thursday, November 26", "Messages", "Chrome"])
    line = memory.facts[0].line()
    assert "not on it" not in line and "worked out by the agent (inputs in the fact): 28" in line, line


def test_a_row_s_own_label_is_quoted_when_the_fact_names_it() -> None:
    """A reader: the lines behind 'the 06:30 Gym alarm is off' had its switch and days but not 'Gym', the word
    that shows it is the right alarm."""
    memory = Memory()
    rows = ["06:30", "Gym", "Mon, Wed, Fri", "Turn on 06:30 alarm · off", "07:15", "Work",
            "Turn off 07:15 alarm · on"]
    memory.add(["The 06:30 Gym alarm (Mon, Wed, Fri) is off"], 4, "clock", rows)
    evidence = memory.facts[0].evidence
    assert "Gym" in evidence and "Turn on 06:30 alarm · off" in evidence and "Work" not in evidence, evidence


def test_a_time_is_one_number_and_a_target_value_is_the_agent_s_own() -> None:
    """A reader: 'F1: the piano alarm must become 17:15' was 'not on it: 17, 15' (a target the agent worked out
    from "a quarter past five", cut in two), and 'dinner moved to 8:30' 'from the task: 30'."""
    memory = Memory(task="Text Bob and Carol in one group message: dinner at 8 moved to 8:30")
    memory.add(["The piano alarm (18:00, Wed) must become 17:15"], 4, "clock",
               ["18:00", "Piano lesson", "Wed", "Turn off 18:00 alarm · on"])
    line = memory.facts[0].line()
    assert "not on it" not in line and "worked out by the agent (inputs in the fact): 17:15" in line, line
    memory.add(["Message to send: dinner at 8 moved to 8:30"], 5, "messages", ["Bob Martinez", "Carol Nguyen"])
    line = memory.facts[1].line()
    assert "not on it" not in line and "from the task: 30" not in line and "8:30" in line, line
    memory.add(["The 07:30 alarm is on"], 6, "clock", ["7:30", "Turn off 7:30 alarm · on"])
    assert "not on it" not in memory.facts[2].line(), memory.facts[2].line()      # 07:30 is 7:30


def test_an_earlier_screen_that_shows_the_fact_s_number_wins_over_one_that_does_not() -> None:
    """A reader: 'Sent to Omar Haddad, 555-0194' was backed by the thread's header and said 'not on it: 555-0194',
    though the screen one step before showed 'O · Omar Haddad · 555-0194'."""
    from relay_desktop.agent.memory.facts import Screen
    memory = Memory()
    picker = Screen(7, "com.google.android.apps.messaging", ("O · Omar Haddad · 555-0194", "Grace Liu · 555-0123"))
    memory.add(["Texted Omar Haddad (555-0194) that book club moved"], 8, "com.google.android.apps.messaging",
               ["Omar Haddad", "Book club moved to Thursday", "Text message"], earlier=[picker])
    line = memory.facts[0].line()
    assert "not on it" not in line and "555-0194" in memory.facts[0].evidence, line


def test_a_fact_noted_with_the_action_it_describes_is_backed_by_the_screen_after_it() -> None:
    """A reader: 'F1: Dark theme switched on', noted in the plan that tapped the switch, was backed only by the
    menu row 'Display · Dark theme, brightness, screen timeout'; the next screen showed 'Dark theme · on'."""
    memory = Memory()
    memory.add(["Dark theme switched on"], 3, "com.android.settings",
               ["Display · Dark theme, brightness, screen timeout", "Sound & vibration"])
    memory.saw(3, "com.android.settings", ["Display · Dark theme, brightness, screen timeout"])
    memory.saw(4, "com.android.settings", ["Dark theme · on", "Brightness level · 54"])
    fact = memory.facts[0]
    assert fact.evidence == "Dark theme · on" and fact.seen_at == 4, fact.line()
    # A fact read off its own screen keeps it when the next screen says less about it.
    memory.add(["Hannah's mobile is 555-0104"], 5, "contacts", ["Hannah Schmidt", "Mobile · 555-0104"])
    memory.saw(5, "contacts", ["Hannah Schmidt", "Mobile · 555-0104"])
    memory.saw(6, "messages", ["Hannah", "Text message"])
    assert "555-0104" in memory.facts[1].evidence and memory.facts[1].seen_at == 5
