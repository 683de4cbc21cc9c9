"""The demo workspace's Objects data: companies, contacts and deals.

Deterministic (ids and values from `ctx.rng`), about 300 records with links:
contact -company-> company, deal -company-> company,
deal -primary_contact-> contact.
"""

from __future__ import annotations

from datetime import date, timedelta

from sandbox.clock import iso
from sandbox.objects import build_options
from sandbox.seed import SeedContext, seed_hook

COMPANY_COUNT = 60
CONTACT_COUNT = 150
DEAL_COUNT = 90

FIRST = [
    "Ada",
    "Ben",
    "Chloe",
    "David",
    "Elena",
    "Farid",
    "Greta",
    "Hugo",
    "Ines",
    "Jonas",
    "Kira",
    "Liam",
    "Mara",
    "Nils",
    "Olga",
    "Pablo",
    "Quinn",
    "Rosa",
    "Sven",
    "Tara",
    "Uma",
    "Viktor",
    "Wen",
    "Yusuf",
    "Zoe",
]
LAST = [
    "Adler",
    "Berger",
    "Costa",
    "Dietrich",
    "Engel",
    "Fischer",
    "Garcia",
    "Hoffmann",
    "Ivanova",
    "Jansen",
    "Keller",
    "Lang",
    "Meyer",
    "Novak",
    "Okafor",
    "Petrov",
    "Richter",
    "Schmidt",
    "Tanaka",
    "Vogel",
    "Weber",
]
WORDS_A = ["Blue", "North", "Bright", "Iron", "Silver", "Green", "Rapid", "Clear", "Urban", "Summit", "Nova", "Pine"]
WORDS_B = [
    "Harbor",
    "Labs",
    "Works",
    "Systems",
    "Foods",
    "Logistics",
    "Media",
    "Health",
    "Capital",
    "Studio",
    "Energy",
    "Robotics",
]
SUFFIX = ["GmbH", "Inc.", "Ltd", "AG", "Co.", "SE"]
TITLES = [
    "CEO",
    "CTO",
    "Head of Marketing",
    "Marketing Manager",
    "Growth Lead",
    "Sales Director",
    "Founder",
    "Brand Manager",
    "Procurement Lead",
    "Content Strategist",
]
CITIES = ["Berlin", "Munich", "Hamburg", "Vienna", "Zurich", "Amsterdam", "Paris", "Lisbon", "Madrid", "Copenhagen"]


def _field(ctx, rng, key, label, ftype, *, required=False, options=None):
    field = {"id": ctx.uuid(rng), "key": key, "label": label, "type": ftype, "required": required, "origin": "custom"}
    if options is not None:
        field["options"] = [{**o, "id": ctx.uuid(rng)} for o in build_options(options)]
    return field


def _object(ctx, rng, ws, key, singular, plural, icon, color, description, fields):
    return ctx.store.insert(
        "object",
        {
            "id": ctx.uuid(rng),
            "key": key,
            "kind": "custom",
            "singular_name": singular,
            "plural_name": plural,
            "description": description,
            "icon": icon,
            "color": color,
            "title_field": fields[0]["key"],
            "fields": fields,
            "views": [{"id": ctx.uuid(rng), "type": "table", "name": "Table"}],
        },
        workspace_id=ws,
    )


def _option(field, label):
    return next(o["id"] for o in field["options"] if o["label"] == label)


@seed_hook("objects_demo", order=10)
def seed_objects_demo(ctx: SeedContext) -> None:
    rng = ctx.rng("objects_demo")
    ws = ctx.demo_workspace_id
    store = ctx.store
    now = ctx.clock.now()

    company_fields = [
        _field(ctx, rng, "name", "Name", "text", required=True),
        _field(ctx, rng, "domain", "Domain", "url"),
        _field(
            ctx,
            rng,
            "industry",
            "Industry",
            "select",
            options=["Software", "Retail", "Manufacturing", "Healthcare", "Finance", "Media"],
        ),
        _field(ctx, rng, "employees", "Employees", "number"),
        _field(ctx, rng, "annual_revenue", "Annual revenue", "currency"),
        _field(ctx, rng, "founded", "Founded", "date"),
        _field(ctx, rng, "customer", "Customer", "boolean"),
        _field(ctx, rng, "city", "City", "text"),
        _field(ctx, rng, "logo", "Logo", "image"),
        _field(ctx, rng, "about", "About", "long_text"),
    ]
    contact_fields = [
        _field(ctx, rng, "full_name", "Full name", "text", required=True),
        _field(ctx, rng, "email", "Email", "email"),
        _field(ctx, rng, "phone", "Phone", "phone"),
        _field(ctx, rng, "job_title", "Job title", "text"),
        _field(
            ctx,
            rng,
            "lifecycle",
            "Lifecycle",
            "select",
            options=[
                {"label": "Lead", "color": "#94a3b8"},
                {"label": "Qualified", "color": "#3b82f6"},
                {"label": "Customer", "color": "#22c55e"},
                {"label": "Churned", "color": "#ef4444"},
            ],
        ),
        _field(ctx, rng, "tags", "Tags", "multi_select", options=["VIP", "Newsletter", "Event", "Partner", "Webinar"]),
        _field(ctx, rng, "birthday", "Birthday", "date"),
        _field(ctx, rng, "last_contacted_at", "Last contacted", "datetime"),
        _field(ctx, rng, "linkedin", "LinkedIn", "url"),
        _field(ctx, rng, "notes", "Notes", "long_text"),
    ]
    deal_fields = [
        _field(ctx, rng, "name", "Name", "text", required=True),
        _field(
            ctx,
            rng,
            "stage",
            "Stage",
            "stage",
            options=[
                {"label": "Qualification", "color": "#94a3b8"},
                {"label": "Proposal", "color": "#3b82f6"},
                {"label": "Negotiation", "color": "#f59e0b"},
                {"label": "Won", "color": "#22c55e"},
                {"label": "Lost", "color": "#ef4444"},
            ],
        ),
        _field(ctx, rng, "amount", "Amount", "currency"),
        _field(ctx, rng, "close_date", "Close date", "date"),
        _field(ctx, rng, "priority", "Priority", "select", options=["Low", "Medium", "High"]),
        _field(ctx, rng, "renewal", "Renewal", "boolean"),
        _field(ctx, rng, "probability", "Probability (%)", "number"),
        _field(ctx, rng, "contract", "Contract", "file"),
        _field(ctx, rng, "next_step", "Next step", "long_text"),
    ]
    companies_obj = _object(
        ctx,
        rng,
        ws,
        "companies",
        "Company",
        "Companies",
        "Building2",
        "#3b82f6",
        "Organisations we sell to and work with.",
        company_fields,
    )
    contacts_obj = _object(
        ctx, rng, ws, "contacts", "Contact", "Contacts", "Users", "#22c55e", "People at our companies.", contact_fields
    )
    deals_obj = _object(
        ctx,
        rng,
        ws,
        "deals",
        "Deal",
        "Deals",
        "Handshake",
        "#f59e0b",
        "Opportunities in the sales pipeline.",
        deal_fields,
    )
    cf = {f["key"]: f for f in company_fields}
    pf = {f["key"]: f for f in contact_fields}
    df = {f["key"]: f for f in deal_fields}

    def stamps(max_days: int) -> dict:
        created = now - timedelta(days=rng.randint(1, max_days), minutes=rng.randint(0, 1439))
        updated = created + timedelta(days=rng.randint(0, (now - created).days), minutes=rng.randint(0, 59))
        return {"created_at": iso(created), "updated_at": iso(min(updated, now))}

    companies = []
    names_used: set[str] = set()
    while len(companies) < COMPANY_COUNT:
        name = f"{rng.choice(WORDS_A)} {rng.choice(WORDS_B)}"
        if name in names_used:
            name = f"{name} {rng.choice(SUFFIX)}"
            if name in names_used:
                continue
        names_used.add(name)
        slug = name.lower().replace(" ", "").replace(".", "")
        values = {
            "name": name,
            "domain": f"https://{slug}.example.com",
            "industry": _option(
                cf["industry"], rng.choice(["Software", "Retail", "Manufacturing", "Healthcare", "Finance", "Media"])
            ),
            "employees": rng.choice([8, 25, 60, 140, 320, 900, 2500]),
            "annual_revenue": round(rng.uniform(0.2, 80) * 1_000_000, 2),
            "founded": (date(1990, 1, 1) + timedelta(days=rng.randint(0, 12000))).isoformat(),
            "customer": rng.random() < 0.4,
            "city": rng.choice(CITIES),
            "about": f"{name} is a {rng.choice(['fast-growing', 'family-owned', 'venture-backed', 'listed'])} "
            f"company based in {rng.choice(CITIES)}.",
        }
        if rng.random() < 0.5:
            values["logo"] = f"https://picsum.photos/seed/{slug}/128/128"
        companies.append({"id": ctx.uuid(rng), "object_id": companies_obj["id"], "values": values, **stamps(400)})
    store.insert_many("record", companies, workspace_id=ws)

    contacts = []
    for i in range(CONTACT_COUNT):
        first, last = rng.choice(FIRST), rng.choice(LAST)
        company = companies[i % COMPANY_COUNT] if i < COMPANY_COUNT else rng.choice(companies)
        domain = company["values"]["domain"].split("//", 1)[1]
        values = {
            "full_name": f"{first} {last}",
            "email": f"{first.lower()}.{last.lower()}{i}@{domain}",
            "job_title": rng.choice(TITLES),
            "lifecycle": _option(pf["lifecycle"], rng.choice(["Lead", "Lead", "Qualified", "Customer", "Churned"])),
            "tags": [
                _option(pf["tags"], t)
                for t in rng.sample(["VIP", "Newsletter", "Event", "Partner", "Webinar"], rng.randint(0, 3))
            ],
        }
        if rng.random() < 0.7:
            values["phone"] = f"+49 30 {rng.randint(1000000, 9999999)}"
        if rng.random() < 0.5:
            values["birthday"] = (date(1960, 1, 1) + timedelta(days=rng.randint(0, 14000))).isoformat()
        if rng.random() < 0.8:
            values["last_contacted_at"] = iso(now - timedelta(hours=rng.randint(1, 2000)))
        if rng.random() < 0.4:
            values["linkedin"] = f"https://www.linkedin.com/in/{first.lower()}-{last.lower()}-{i}"
        if rng.random() < 0.3:
            values["notes"] = rng.choice(
                [
                    "Met at the spring trade fair.",
                    "Prefers email over calls.",
                    "Decision maker for the Q3 budget.",
                    "Asked for a case study.",
                ]
            )
        contacts.append(
            {
                "id": ctx.uuid(rng),
                "object_id": contacts_obj["id"],
                "values": values,
                "_company": company["id"],
                **stamps(300),
            }
        )
    store.insert_many("record", [{k: v for k, v in c.items() if k != "_company"} for c in contacts], workspace_id=ws)

    deals = []
    for i in range(DEAL_COUNT):
        company = rng.choice(companies)
        stage = rng.choice(["Qualification", "Proposal", "Negotiation", "Won", "Lost"])
        values = {
            "name": f"{company['values']['name']} - {rng.choice(['Website relaunch', 'Brand campaign', 'Video series', 'Annual retainer', 'Product launch', 'SEO program'])}",
            "stage": _option(df["stage"], stage),
            "amount": round(rng.choice([2.5, 5, 8, 12, 20, 35, 60]) * 1000 + rng.randint(0, 99) * 10, 2),
            "close_date": (now.date() + timedelta(days=rng.randint(-120, 180))).isoformat(),
            "priority": _option(df["priority"], rng.choice(["Low", "Medium", "High"])),
            "renewal": rng.random() < 0.3,
            "probability": {"Qualification": 10, "Proposal": 35, "Negotiation": 60, "Won": 100, "Lost": 0}[stage],
        }
        if rng.random() < 0.3:
            values["contract"] = f"https://files.example.com/contracts/{i + 1:04d}.pdf"
        if rng.random() < 0.6:
            values["next_step"] = rng.choice(
                [
                    "Send the proposal.",
                    "Book a call with procurement.",
                    "Wait for legal review.",
                    "Prepare the kickoff deck.",
                ]
            )
        people = [c for c in contacts if c["_company"] == company["id"]]
        deals.append(
            {
                "id": ctx.uuid(rng),
                "object_id": deals_obj["id"],
                "values": values,
                "_company": company["id"],
                "_contact": people[0]["id"] if people else None,
                **stamps(200),
            }
        )
    store.insert_many("record", [{k: v for k, v in d.items() if not k.startswith("_")} for d in deals], workspace_id=ws)

    links = []

    def link(relation_key, source_obj, source_id, target_obj, target_id, label=""):
        links.append(
            {
                "id": ctx.uuid(rng),
                "relation_key": relation_key,
                "source_object": source_obj["key"],
                "source_object_id": source_obj["id"],
                "source_id": source_id,
                "target_object": target_obj["key"],
                "target_object_id": target_obj["id"],
                "target_id": target_id,
                "label": label,
                "metadata": {},
            }
        )

    for c in contacts:
        link("company", contacts_obj, c["id"], companies_obj, c["_company"], "Works at")
    for d in deals:
        link("company", deals_obj, d["id"], companies_obj, d["_company"])
        if d["_contact"]:
            link("primary_contact", deals_obj, d["id"], contacts_obj, d["_contact"], "Primary contact")
    store.insert_many("relationship", links, workspace_id=ws)

    # The second workspace has one small object so "other workspace" isolation can be seen.
    other = ctx.workspaces["other_workspace"]
    projects = ctx.store.insert(
        "object",
        {
            "id": ctx.uuid(rng),
            "key": "projects",
            "kind": "custom",
            "singular_name": "Project",
            "plural_name": "Projects",
            "description": "Research projects.",
            "icon": "FlaskConical",
            "color": "#14b8a6",
            "title_field": "name",
            "fields": [_field(ctx, rng, "name", "Name", "text", required=True)],
            "views": [{"id": ctx.uuid(rng), "type": "table", "name": "Table"}],
        },
        workspace_id=other,
    )
    store.insert_many(
        "record",
        [
            {"id": ctx.uuid(rng), "object_id": projects["id"], "values": {"name": n}}
            for n in ("Quantum sensors", "Soil microbiome")
        ],
        workspace_id=other,
    )
