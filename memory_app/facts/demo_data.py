"""The vocabulary of the facts demo (``facts-data-contract.md`` section 5): short
third-person sentences as the agent's LLM writes them, by theme, and the planted cases.

The planted cases are listed here (the manifest), never marked in the data.
"""

from __future__ import annotations

from typing import Any

THEMES: dict[str, list[str]] = {
    "master": [
        "The master's name is Minh.",
        "The master speaks Vietnamese and English.",
        "The master works as a software engineer.",
        "The master has a cat named Mochi.",
        "The master has a second cat named Bun.",
        "The master drinks black coffee in the morning.",
        "The master prefers concise answers.",
        "The master dislikes long disclaimers.",
        "The master studies Japanese on weekends.",
        "The master's favourite food is pho.",
        "The master plays the guitar a little.",
        "The master's favourite anime is Frieren.",
        "The master usually goes to bed after midnight.",
        "The master is allergic to shrimp.",
        "The master runs five kilometres on Sunday mornings.",
        "The master's sister lives in Da Nang.",
        "The master uses a split mechanical keyboard.",
        "The master likes rainy weather.",
        "The master reads light novels before sleeping.",
        "The master wants to visit Kyoto next spring.",
    ],
    "lily": [
        "Lily is a virtual assistant with a cheerful personality.",
        "Lily refers to the user as master.",
        "Lily's TTS voice is a soft female voice.",
        "Lily's VTube Studio model is called LilyV2.",
        "Lily's VTube Studio plugin listens on port 8001.",
        "Lily translates the master's messages into Japanese on request.",
        "Lily should keep replies under five sentences in Discord.",
        "Lily uses emoji sparingly.",
        "Lily should not reveal the master's address.",
        "Lily greets the master in the morning with the weather.",
        "Lily's wake word is 'Hey Lily'.",
        "Lily's avatar has pink hair and a blue ribbon.",
        "Lily's speech speed is set to 1.1.",
        "Lily speaks English unless asked otherwise.",
        "Lily's default LLM provider is Gemini.",
        "Lily uses OpenAI as a fallback provider.",
        "Lily plays lo-fi music when the master studies.",
        "Lily reminds the master to drink water every two hours.",
    ],
    "discord": [
        "The Discord server is called Lily's Garden.",
        "The Discord channel #general is for casual chat.",
        "The Discord channel #dev-log is for project updates.",
        "The Discord channel #art is for drawings and fan art.",
        "The Discord channel #music is for song recommendations.",
        "The Discord channel #bot-commands is where Lily answers commands.",
        "The Discord role Gardener is given to regular members.",
        "The Discord role Sprout is given to new members.",
        "The Discord role Moderator belongs to Khoa and Linh.",
        "Khoa is the master's friend from university.",
        "Linh draws most of the fan art on the server.",
        "Tuan hosts the Friday movie night on Discord.",
        "Mai is learning Python with the master's help.",
        "The Discord server has about forty members.",
        "Lily only answers in Discord when she is mentioned.",
        "Bao is banned from the Discord server for spam.",
    ],
    "games": [
        "The master plays GregTech: New Horizons.",
        "The master's GTNH base is in a plains biome near spawn.",
        "The master automated the EBF for aluminium in GTNH.",
        "The master's GTNH world is called Lilypad.",
        "The master prefers playing GTNH with friends on the server.",
        "The master wants to build an assembly line in GTNH.",
        "The master plays Genshin Impact casually.",
        "The master's main Genshin character is Furina.",
        "The master plays Stardew Valley with Mai.",
        "The master likes rhythm games such as osu!.",
        "The Minecraft server runs version 1.7.10 for GTNH.",
        "The Minecraft server restarts every night at 4 am.",
        "The master's Minecraft username is minhcraft.",
        "The master is bad at PvP games.",
        "The master plays Factorio when GTNH gets boring.",
    ],
    "projects": [
        "LilyTheThird is the master's main project.",
        "LilyTheThird is written in Python.",
        "LilyTheThird uses MongoDB for long-term memory.",
        "LilyTheThird uses PyQt for its chat window.",
        "LilyTheThird has a Discord bot mode.",
        "TTS-Provider is a separate service for speech synthesis.",
        "TTS-Provider is written in Python with FastAPI.",
        "TTS-Provider uses the Edge TTS backend by default.",
        "Web-Scout is the master's web search tool for Lily.",
        "Web-Scout uses DuckDuckGo as its search engine.",
        "Web-Scout summarises pages before giving them to Lily.",
        "The master deploys his services with Docker Compose.",
        "The master keeps his projects on GitHub under UpperMoon0.",
        "The master wants to add a vision module to Lily.",
        "The master is refactoring the memory handler of LilyTheThird.",
        "The master writes commit messages in English.",
        "The master prefers pytest for tests.",
        "The master's CI runs on GitHub Actions.",
    ],
    "schedule": [
        "The master has a team stand-up at 9:30 on weekdays.",
        "The master has Japanese class on Saturday at 10 am.",
        "The master visits his parents on the first Sunday of the month.",
        "The master's rent is due on the fifth of each month.",
        "The master's dentist appointment is on June 12.",
        "The master wants a reminder to renew his passport in August.",
        "The master's JLPT N3 exam is in December.",
        "The master goes to the gym on Tuesday and Thursday evenings.",
        "The master's team has a retrospective every second Friday.",
        "The master takes a holiday in the last week of July.",
        "The master waters the plants on Wednesday.",
        "The master's car insurance renews in October.",
    ],
    "hardware": [
        "The master's desktop has an RTX 3060 graphics card.",
        "The master's desktop has 32 GB of RAM.",
        "The master's desktop runs Windows 11.",
        "The master's laptop runs Ubuntu 24.04.",
        "The master's home server is a Raspberry Pi 5.",
        "The master uses two 27-inch monitors.",
        "The master's microphone is a Blue Yeti.",
        "The master's headphones are Sony WH-1000XM4.",
        "The master's router is in the living room.",
        "The master's NAS has four terabytes of storage.",
        "The master uses VS Code as his editor.",
        "The master's phone is a Pixel 8.",
        "The master's webcam is a Logitech C920.",
        "The master's desktop CPU is a Ryzen 7 5800X.",
    ],
}

# Templated facts to reach the demo's real scale (~220 documents), distinct values.
FRIENDS = [
    "An",
    "Binh",
    "Chi",
    "Dung",
    "Giang",
    "Hieu",
    "Huong",
    "Lan",
    "Long",
    "Nam",
    "Ngoc",
    "Phong",
    "Quang",
    "Son",
    "Thao",
    "Trang",
    "Vy",
    "Yen",
]
FRIEND_HOBBIES = [
    "chess",
    "badminton",
    "photography",
    "cooking",
    "cycling",
    "karaoke",
    "painting",
    "hiking",
    "anime",
    "basketball",
    "baking",
    "fishing",
    "board games",
    "swimming",
    "piano",
    "gardening",
    "drumming",
    "climbing",
]
REMINDERS = [
    "buy cat food",
    "call his mother",
    "back up the NAS",
    "pay the electricity bill",
    "update the router firmware",
    "clean the keyboard",
    "order coffee beans",
    "renew the domain name",
    "check the GTNH server logs",
    "sort the photo library",
    "charge the camera battery",
    "return the library book",
]
WEEKDAYS = [
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
    "Monday",
    "Wednesday",
    "Friday",
    "Saturday",
    "Sunday",
]


SONGS = [
    ("Sparkle", "RADWIMPS"),
    ("Lemon", "Kenshi Yonezu"),
    ("Idol", "YOASOBI"),
    ("Unravel", "TK"),
    ("Gurenge", "LiSA"),
    ("Pretender", "Official HIGE DANdism"),
    ("Kaikai Kitan", "Eve"),
    ("Blue Bird", "Ikimono-gakari"),
    ("Shinunoga E-Wa", "Fujii Kaze"),
    ("Lost in Paradise", "ALI"),
    ("Mixed Nuts", "Official HIGE DANdism"),
    ("Suzume", "RADWIMPS"),
    ("Odoriko", "Vaundy"),
    ("Cry Baby", "Official HIGE DANdism"),
    ("Yoru ni Kakeru", "YOASOBI"),
    ("Kick Back", "Kenshi Yonezu"),
    ("Overdose", "natori"),
    ("Bling-Bang-Bang-Born", "Creepy Nuts"),
]
TRIPS = [
    ("Hue", 2019),
    ("Hoi An", 2020),
    ("Da Lat", 2021),
    ("Osaka", 2022),
    ("Seoul", 2023),
    ("Bangkok", 2018),
    ("Singapore", 2017),
    ("Taipei", 2024),
    ("Sapa", 2016),
    ("Phu Quoc", 2015),
    ("Ha Long Bay", 2014),
    ("Kuala Lumpur", 2013),
    ("Tokyo", 2023),
    ("Nha Trang", 2012),
    ("Can Tho", 2011),
    ("Vientiane", 2010),
    ("Busan", 2024),
    ("Hanoi", 2009),
]


def templated_facts() -> list[str]:
    friends = [
        f"{name} from the Discord server likes {hobby}."
        for name, hobby in zip(FRIENDS, FRIEND_HOBBIES, strict=True)
    ]
    reminders = [
        f"The master asked to be reminded to {task} on {day}."
        for task, day in zip(REMINDERS, WEEKDAYS, strict=True)
    ]
    songs = [f"The master often listens to {song} by {artist}." for song, artist in SONGS]
    trips = [f"The master travelled to {city} in {year}." for city, year in TRIPS]
    return friends + reminders + songs + trips


# --- planted cases (the manifest) ---------------------------------------------------------

# 1. Value-changed pairs: (older, newer); the newer is the correct one. The third value is
#    the float64 cosine measured here with all-MiniLM-L6-v2 for these exact sentences
#    (the contract's figures are for its own wording; the birthday and colour pairs use it
#    and match: 0.95005 and 0.9525).
VALUE_CHANGED = [
    ("Lily uses Gemini 2.0 Flash as her model.", "Lily uses Gemini 2.5 Flash as her model.", 0.986),
    (
        "The TTS-Provider service runs on port 9000.",
        "The TTS-Provider service runs on port 9100.",
        0.960,
    ),
    (
        "The master's Discord ID is 284716395028371456.",
        "The master's Discord ID is 284716395028371457.",
        0.9994,
    ),
    (
        "The user's favorite color is blue.",
        "The user's favorite color is dark blue.",
        0.9525,
    ),
    ("The user's birthday is March 3.", "The user's birthday is March 4.", 0.950055),
    ("Lily should answer in Japanese.", "Lily should always answer in Japanese.", 0.975),
]

# 2. A chain, planted twice: A oldest (A and C kept, B deleted) and B oldest (only B
#    kept). Measured here: Minecraft A ~ B 0.964, B ~ C 0.980, A ~ C 0.949 (the contract's
#    wording: 0.975, 0.961, 0.941); the Terraria copy has the same shape.
CHAINS = [
    (
        [
            "The Minecraft server IP is 192.168.1.20.",
            "The Minecraft server IP is 192.168.1.25.",
            "The Minecraft server IP is 192.168.1.25:25565.",
        ],
        (0, 1, 2),  # oldest first, as indexes: A oldest
    ),
    (
        [
            "Khoa's Terraria server address is 10.0.0.20.",
            "Khoa's Terraria server address is 10.0.0.25.",
            "Khoa's Terraria server address is 10.0.0.25:7777.",
        ],
        (1, 0, 2),  # B oldest
    ),
]

# 3. Exact duplicates left by agent updates, at three timestamps.
EXACT_DUPLICATE = "The master's cat Mochi is three years old."

# 4. A >= 0.95 pair written in the same millisecond (the agent keeps either one).
TIE = ("The master's timezone is UTC+7.", "The master's time zone is UTC+7.")

# 5. Near misses below 0.95 (0.85-0.95 here): possible contradictions the agent keeps.
NEAR_MISSES: list[tuple[str | None, str, float]] = [
    (
        "The master's GTNH base is in the MV tier.",
        "The master's GTNH base is in the HV tier.",
        0.889,
    ),
    (
        "The master is a backend developer.",
        "The master is a backend developer at a startup.",
        0.926,
    ),
    # the older is the value-changed pair's "March 3", planted once
    (None, "The user was born on March 3.", 0.892),
]

# 6. Legacy data of 2025-04-20 (+0700): conversation turns, facts without an embedding.
LEGACY_TURNS = [
    ("Hi Lily, are you there?", "Yes master, I'm here! How can I help?"),
    ("Remember that I like black coffee.", "Got it, I'll remember that you like black coffee."),
    ("What's the weather like?", "I can't check the weather yet, master."),
    ("Can you speak Japanese?", "Hai! I can speak a little Japanese."),
    ("Good night Lily.", "Good night master, sleep well!"),
    ("Test the memory please.", "Memory test done, everything looks fine."),
]
LEGACY_FACTS = [
    "The master likes black coffee.",
    "The master is testing Lily's memory.",
    "The master lives in Ho Chi Minh City.",
    "The master's cat is called Mochi.",
]

# 7. Facts with non-empty metadata: synthetic (the agent's tools never pass metadata).
WITH_METADATA: list[tuple[str, dict[str, Any]]] = [
    ("The master's favourite tea is oolong.", {"source": "synthetic-demo", "note": "rendering"}),
    ("The master's bike is a grey road bike.", {"tags": ["synthetic", "demo"]}),
    ("The master's old phone was a Galaxy S10.", {"synthetic": True, "confidence": 0.6}),
]
