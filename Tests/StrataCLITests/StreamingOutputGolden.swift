// Generated from the whole-answer implementation (before streaming) on the document
// `StreamingOutputGoldenTests.document(in:)` builds; store identifiers read STORE.
enum StreamingOutputGolden {
    static let fetchTable = #"""
object       firstName         lastName  salary  active  manager      directReports            department     projects
───────────  ────────────────  ────────  ──────  ──────  ───────────  ───────────────────────  ─────────────  ──────────
Employee/p3  Grace, "Amazing"  Hopper    120000  true    Employee/p1                           null
Employee/p1  Ada               Lovelace  150000  true    null         Employee/p2 Employee/p3  Department/p1  Project/p1
"""#
    static let fetchTableNote = #"""
2 objects
"""#
    static let fetchCSV = #"""
_uri,_entity,firstName,lastName,salary,startDate,employeeID,email,active,rating,bonus,badge,homepage,photo,notes,manager,directReports,department,projects
x-strata://STORE/Employee/p3,Employee,"Grace, ""Amazing""",Hopper,120000,,,,true,,,,,,,x-strata://STORE/Employee/p1,,,
x-strata://STORE/Employee/p1,Employee,Ada,Lovelace,150000,,,,true,,,,,,,,x-strata://STORE/Employee/p2 x-strata://STORE/Employee/p3,x-strata://STORE/Department/p1,x-strata://STORE/Project/p1
"""#
    static let fetchJSON = #"""
[
  {
    "_uri": "x-strata://STORE/Employee/p3",
    "_entity": "Employee",
    "firstName": "Grace, \"Amazing\"",
    "lastName": "Hopper",
    "salary": 120000,
    "startDate": null,
    "employeeID": null,
    "email": null,
    "active": true,
    "rating": null,
    "bonus": null,
    "badge": null,
    "homepage": null,
    "photo": null,
    "notes": null,
    "manager": "x-strata://STORE/Employee/p1",
    "directReports": [],
    "department": null,
    "projects": []
  },
  {
    "_uri": "x-strata://STORE/Employee/p1",
    "_entity": "Employee",
    "firstName": "Ada",
    "lastName": "Lovelace",
    "salary": 150000,
    "startDate": null,
    "employeeID": null,
    "email": null,
    "active": true,
    "rating": null,
    "bonus": null,
    "badge": null,
    "homepage": null,
    "photo": null,
    "notes": null,
    "manager": null,
    "directReports": [
      "x-strata://STORE/Employee/p2",
      "x-strata://STORE/Employee/p3"
    ],
    "department": "x-strata://STORE/Department/p1",
    "projects": [
      "x-strata://STORE/Project/p1"
    ]
  }
]
"""#
    static let fetchIDs = #"""
x-strata://STORE/Employee/p3
x-strata://STORE/Employee/p1
"""#
    static let personCSV = #"""
_uri,_entity,firstName,lastName,salary,startDate,employeeID,email,active,rating,bonus,badge,homepage,photo,notes,manager,directReports,department,projects
x-strata://STORE/Employee/p3,Employee,"Grace, ""Amazing""",Hopper,120000,,,,true,,,,,,,x-strata://STORE/Employee/p1,,,
x-strata://STORE/Employee/p2,Employee,Alan,Turing,,,,,true,4.5,,,,,,x-strata://STORE/Employee/p1,,,
x-strata://STORE/Employee/p1,Employee,Ada,Lovelace,150000,,,,true,,,,,,,,x-strata://STORE/Employee/p2 x-strata://STORE/Employee/p3,x-strata://STORE/Department/p1,x-strata://STORE/Project/p1
"""#
    static let personTable = #"""
object       firstName         lastName  salary  active  rating  manager      directReports            department     projects
───────────  ────────────────  ────────  ──────  ──────  ──────  ───────────  ───────────────────────  ─────────────  ──────────
Employee/p1  Ada               Lovelace  150000  true    null    null         Employee/p2 Employee/p3  Department/p1  Project/p1
Employee/p2  Alan              Turing    null    true    4.5     Employee/p1                           null
Employee/p3  Grace, "Amazing"  Hopper    120000  true    null    Employee/p1                           null
"""#
    static let emptyJSON = #"""
[]
"""#
    static let emptyCSV = #"""
_uri,_entity,firstName,lastName,salary,startDate,employeeID,email,active,rating,bonus,badge,homepage,photo,notes,manager,directReports,department,projects
"""#
    static let emptyTable = #"""
object  firstName  lastName  salary  startDate  employeeID  email  active  rating  bonus  badge  homepage  photo  notes  manager  directReports  department  projects
──────  ─────────  ────────  ──────  ─────────  ──────────  ─────  ──────  ──────  ─────  ─────  ────────  ─────  ─────  ───────  ─────────────  ──────────  ────────
"""#
    static let export = #"""
[
  {
    "_uri": "x-strata://STORE/Employee/p1",
    "_entity": "Employee",
    "firstName": "Ada",
    "lastName": "Lovelace",
    "salary": 150000,
    "startDate": null,
    "employeeID": null,
    "email": null,
    "active": true,
    "rating": null,
    "bonus": null,
    "badge": null,
    "homepage": null,
    "photo": null,
    "notes": null,
    "manager": null,
    "directReports": [
      "x-strata://STORE/Employee/p2",
      "x-strata://STORE/Employee/p3"
    ],
    "department": "x-strata://STORE/Department/p1",
    "projects": [
      "x-strata://STORE/Project/p1"
    ]
  },
  {
    "_uri": "x-strata://STORE/Employee/p2",
    "_entity": "Employee",
    "firstName": "Alan",
    "lastName": "Turing",
    "salary": null,
    "startDate": null,
    "employeeID": null,
    "email": null,
    "active": true,
    "rating": 4.5,
    "bonus": null,
    "badge": null,
    "homepage": null,
    "photo": null,
    "notes": null,
    "manager": "x-strata://STORE/Employee/p1",
    "directReports": [],
    "department": null,
    "projects": []
  },
  {
    "_uri": "x-strata://STORE/Employee/p3",
    "_entity": "Employee",
    "firstName": "Grace, \"Amazing\"",
    "lastName": "Hopper",
    "salary": 120000,
    "startDate": null,
    "employeeID": null,
    "email": null,
    "active": true,
    "rating": null,
    "bonus": null,
    "badge": null,
    "homepage": null,
    "photo": null,
    "notes": null,
    "manager": "x-strata://STORE/Employee/p1",
    "directReports": [],
    "department": null,
    "projects": []
  },
  {
    "_uri": "x-strata://STORE/Department/p1",
    "_entity": "Department",
    "name": "Research\nand Development, \"R&D\"",
    "budget": null,
    "employees": [
      "x-strata://STORE/Employee/p1"
    ]
  },
  {
    "_uri": "x-strata://STORE/Project/p1",
    "_entity": "Project",
    "name": "Engine",
    "deadline": null,
    "members": [
      "x-strata://STORE/Employee/p1"
    ]
  }
]
"""#
}
