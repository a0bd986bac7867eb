"""The one parser of patients' messages: scheduling slots, time preferences with their direction, clarifying
questions, references to offered slots and clinical remarks.

It serves the short-term slots of a conversation (``conversations.slots``) and the long-term preference
proposals made from a turn (:func:`memory_facts`), so both read a message the same way. It is a narrow rule-based
parser for scheduling talk, not clinical NLP: what it cannot read with confidence it leaves out or turns into a
clarifying question, never a guess.

Rules that matter (each has tests):

* **Direction is kept.** "before 3 pm" is a latest time, "after 14:30" an earliest one; a negation in the same
  clause flips a plain relation ("don't book me before 10" is an earliest time, "I can't come after 4pm" a latest
  one); "not before", "no later than" and the like are read as one relation and never flipped again.
* **24-hour and am/pm forms agree.** "15:00", "3 pm", "3pm", "3 p.m.", "3:00 PM", "3p" and "15h" are all 15:00,
  and relations typed as on a phone ("aftr", "befor", "no earlier then") keep their direction.
* **Ambiguous times are asked about.** A bare hour from 1 to 7 without minutes or am/pm ("after 3"), or an
  unpadded 1:00-7:59 without am/pm ("after 3:30"), reads one way on a 24-hour clock (03:00, before any clinic
  opens) and another in speech (15:00). Those yield a clarifying question with both candidates and no value.
  Bare 8-12 read as the morning/noon hour (their 24-hour reading), and 0 or 13-23 as 24-hour times.
* **Ranges are two times.** "between 2 and 4pm", "2pm-4pm", "10am to 2pm", "10:30-11:00", "from 10 to 12" and
  "10-12" are an earliest and a latest time (across noon too: "from 9 to 1pm", "12 to 2pm"; minutes to the hour
  are said in fives, "20 to 4" is 3:40) (a range without "between" or "from" only when its ends are clock
  times or hours in order, so "5-10 minutes" stays a number; "0930" and "1430 hrs" are clock times); a negated
  range ("not between 12 and 2", "2pm-4pm doesn't work", "I work 9am-5pm") is asked about, never turned around.
* **A date or a time?** Two numbers said where a date is said (after "on", "the", "for", "by", "until",
  "except") that read both as a date and as times ("on 12-14": the 14th of December, or 12:00 to 14:00; "on
  14.12") are asked about (date_or_time), nothing read meanwhile; readable only as a date ("on 12-25", "12/14",
  "14.12.2026") they are a date (relative_day). Elsewhere ("12-14", "on Tuesday 12-14", "between 12-14") they are
  a window, as "10-12" is.
* **A part of today is a date.** "this afternoon please" asks for today, as "tomorrow afternoon" asks for a date:
  both are asked about (relative_day); said of the past ("I took my pills this morning", "since this morning") it
  is no request and names nothing.
* **Negation excludes.** "I can't do mornings" excludes mornings; it is not a preference for them. Negation is
  scoped to its clause, and phrases such as "don't mind" or "isn't there" do not negate, nor does a "no" that
  opens a sentence before a day said to be fine ("no Tuesday is fine" is "no, Tuesday is fine").
* **A list is one phrase.** Days and parts of the day joined by commas and ending in "or"/"and"/"nor", or three
  or more of them, are one list: a negation before it ("not Monday, Tuesday or Wednesday") or a refusal after it
  ("Mon, Tue, Wed are out") covers every item, and a part of the day after it is each day's ("Monday, Tuesday or
  Wednesday afternoon", as "Tuesday or Wednesday afternoon"). Two items with only a comma ("not Monday, Tuesday")
  and a list followed by what is fine ("not Monday, Tuesday or Wednesday is fine") stay apart.
* **Once is not for good.** A day or part of the day refused for this booking ("I can't make Tuesday", "not
  Monday", "Friday is out") is excluded from this conversation's offers but never proposed as a standing
  preference; only a refusal said as lasting is (in the plural, "I can't do Mondays"; with "every", "any", "on a",
  "in the"; or with a word of habit, "I can never do Monday", "Monday is usually impossible"). A time said with a
  day or a date in its clause ("I can't do Monday after 3pm") is about that day and never proposed either.
* **Nothing is defaulted.** Intent and specialty come from the message or stay empty.
"""

from conversations.parsing.terms import DAYS, PERIOD_HOURS, PERIODS
from conversations.parsing.text import normalise
from conversations.parsing.times import (
    AMBIGUOUS_BARE_HOURS,
    EARLIEST,
    LATEST,
    Clarification,
    TimePreference,
    parse_time_preferences,
    spoken,
)
from conversations.parsing.turn import (
    INTENTS,
    REMARK_POLICY,
    SPECIALTIES,
    Reference,
    Remark,
    TurnParse,
    memory_facts,
    parse_turn,
    this_booking_only,
)

__all__ = [
    "AMBIGUOUS_BARE_HOURS", "DAYS", "EARLIEST", "INTENTS", "LATEST", "PERIODS", "PERIOD_HOURS", "REMARK_POLICY",
    "SPECIALTIES", "Clarification", "Reference", "Remark", "TimePreference", "TurnParse", "memory_facts",
    "normalise", "parse_time_preferences", "parse_turn", "spoken", "this_booking_only",
]
